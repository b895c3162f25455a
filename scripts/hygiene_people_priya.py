"""Priya: a data analyst in Bangalore who loses her old dog and adopts a puppy, calls off her
engagement, leaves her parents' home and changes how she keeps fit (January to December 2024).

One person of the memory-hygiene data set (assembled and checked in hygiene_data.py);
written for this project (MIT), fictional. ``SAID`` rows are (key, ISO date said,
MemoryType value, importance, text) in the order said.
"""

from __future__ import annotations

USER = "priya"

SAID: tuple[tuple[str, str, str, float, str], ...] = (
    (
        "job",
        "2024-01-06",
        "ProfileFact",
        0.6,
        "The user works as a data analyst at a fintech startup in Bangalore.",
    ),
    (
        "home-1",
        "2024-01-06",
        "ProfileFact",
        0.7,
        "The user lives with her parents in a house in Jayanagar.",
    ),
    (
        "dog-1",
        "2024-01-07",
        "RelationshipFact",
        0.7,
        "The user has an old beagle called Mango who has been with the family for thirteen years.",
    ),
    (
        "grandma-call-a",
        "2024-01-12",
        "Routine",
        0.6,
        "The user video-calls her grandmother in Chennai every Friday night.",
    ),
    (
        "idli",
        "2024-01-14",
        "EpisodicEvent",
        0.1,
        "The user had idli and coconut chutney for breakfast on 2024-01-14.",
    ),
    (
        "engaged-1",
        "2024-01-20",
        "RelationshipFact",
        0.8,
        "The user is engaged to Arjun; their families are planning a wedding for January 2025.",
    ),
    (
        "drink-1",
        "2024-01-25",
        "Routine",
        0.4,
        "The user drinks three cups of strong filter coffee a day.",
    ),
    (
        "internet",
        "2024-01-30",
        "EpisodicEvent",
        0.1,
        "The user's internet was down for an hour on the afternoon of 2024-01-30.",
    ),
    (
        "exercise-1",
        "2024-02-03",
        "Routine",
        0.5,
        "The user does yoga for forty minutes every morning before work.",
    ),
    (
        "umbrella",
        "2024-02-08",
        "EpisodicEvent",
        0.1,
        "The user bought a new umbrella on 2024-02-08.",
    ),
    (
        "tamil",
        "2024-02-10",
        "ProfileFact",
        0.5,
        "The user's family is Tamil, but she was born and raised in Bangalore.",
    ),
    (
        "karthik-a",
        "2024-02-17",
        "RelationshipFact",
        0.5,
        "The user's younger brother Karthik is studying engineering in Manipal.",
    ),
    (
        "hampi",
        "2024-02-24",
        "EpisodicEvent",
        0.5,
        "The user went on a trip to Hampi with her college friends in February 2024.",
    ),
    (
        "sketch-a",
        "2024-03-02",
        "Routine",
        0.5,
        "The user sketches old buildings in a notebook at weekends.",
    ),
    ("haircut", "2024-03-05", "EpisodicEvent", 0.1, "The user got a haircut on 2024-03-05."),
    (
        "rcb-a",
        "2024-03-09",
        "Preference",
        0.4,
        "The user is a huge fan of the Royal Challengers Bangalore cricket team.",
    ),
    ("traffic-a", "2024-03-16", "EmotionalState", 0.4, "The user can't stand Bangalore traffic."),
    (
        "insomnia-a",
        "2024-03-23",
        "ProfileFact",
        0.5,
        "The user often has trouble falling asleep when work gets stressful.",
    ),
    (
        "mango-fruit",
        "2024-04-06",
        "Preference",
        0.4,
        "The user loves mangoes, especially Alphonsos in the summer.",
    ),
    (
        "chaat",
        "2024-04-13",
        "EpisodicEvent",
        0.4,
        "The user got food poisoning from street chaat in April 2024 and spent two days in bed.",
    ),
    (
        "grandma-call-b",
        "2024-04-19",
        "Routine",
        0.6,
        "Friday evenings after dinner the user always rings her paati in Chennai.",
    ),
    (
        "rcb-b",
        "2024-04-20",
        "Preference",
        0.4,
        "The user never misses an RCB match on TV and screams at every wicket.",
    ),
    (
        "sketch-b",
        "2024-04-27",
        "Routine",
        0.5,
        "Urban sketching on Saturdays is how the user unwinds.",
    ),
    (
        "dog-2",
        "2024-05-11",
        "RelationshipFact",
        0.8,
        "The user's beagle Mango died in his sleep in May 2024; she is heartbroken.",
    ),
    (
        "mango-pickle",
        "2024-05-18",
        "Preference",
        0.4,
        "The user dislikes raw mango pickle; it's too sour and oily for her.",
    ),
    (
        "masters-goal",
        "2024-05-25",
        "Goal",
        0.7,
        "The user wants to do a master's degree in Europe within the next two years.",
    ),
    (
        "karthik-b",
        "2024-06-01",
        "RelationshipFact",
        0.5,
        "Karthik, the user's kid brother, is doing a B.Tech at Manipal.",
    ),
    (
        "meera-engineering",
        "2024-06-08",
        "RelationshipFact",
        0.5,
        "The user's cousin Meera is studying engineering in Pune.",
    ),
    (
        "drink-2",
        "2024-06-15",
        "Routine",
        0.4,
        "The user has cut out coffee completely and sticks to green tea now.",
    ),
    (
        "monsoon-evenings",
        "2024-06-22",
        "Preference",
        0.4,
        "The user enjoys rainy monsoon evenings at home with a book.",
    ),
    (
        "engaged-2",
        "2024-07-06",
        "RelationshipFact",
        0.8,
        "The user and Arjun have called off their engagement.",
    ),
    (
        "traffic-b",
        "2024-07-13",
        "EmotionalState",
        0.4,
        "Being stuck in the city's jams drives the user up the wall.",
    ),
    (
        "monsoon-scooter",
        "2024-07-20",
        "Preference",
        0.4,
        "The user hates getting caught in monsoon rain on her scooter.",
    ),
    (
        "exercise-2",
        "2024-07-27",
        "Routine",
        0.5,
        "The user has swapped her morning yoga for running and is training for a 10k.",
    ),
    (
        "wedding-boundary",
        "2024-08-03",
        "Boundary",
        0.9,
        "The user does not want to be asked about the wedding or Arjun's family.",
    ),
    (
        "expectations",
        "2024-08-10",
        "EmotionalState",
        0.6,
        "The user feels overwhelmed by her parents' expectations of her.",
    ),
    (
        "dust-allergy",
        "2024-08-17",
        "ProfileFact",
        0.6,
        "The user is allergic to dust mites and sneezes every time she cleans.",
    ),
    (
        "karthik-isro",
        "2024-08-24",
        "EpisodicEvent",
        0.5,
        "The user's brother Karthik got a summer internship at ISRO.",
    ),
    (
        "dog-3",
        "2024-09-07",
        "RelationshipFact",
        0.8,
        "The user has adopted a shy street puppy from a shelter and named her Chutney.",
    ),
    (
        "insomnia-b",
        "2024-09-14",
        "ProfileFact",
        0.5,
        "When deadlines pile up, the user lies awake for hours.",
    ),
    (
        "ibuprofen",
        "2024-09-21",
        "ProfileFact",
        0.8,
        "The user is allergic to ibuprofen and can only take paracetamol.",
    ),
    (
        "home-2",
        "2024-10-05",
        "ProfileFact",
        0.7,
        "The user has moved out of her parents' place into her own one-bedroom flat in "
        "Indiranagar.",
    ),
    ("author", "2024-10-12", "Preference", 0.4, "The user's favourite author is Arundhati Roy."),
    (
        "sketch-c",
        "2024-10-19",
        "Routine",
        0.5,
        "User said she carries a little sketchbook everywhere and draws the old houses "
        "of Basavanagudi on weekends.",
    ),
    ("poet", "2024-10-26", "Preference", 0.4, "The user's favourite poet is Rumi."),
    (
        "driving-goal",
        "2024-11-02",
        "Goal",
        0.5,
        "The user wants to learn to drive a car before summer 2025.",
    ),
    (
        "grandma-call-c",
        "2024-11-09",
        "Routine",
        0.6,
        "User mentioned she would never skip the weekly Friday chat with her grandmother.",
    ),
    (
        "contacts",
        "2024-11-16",
        "ProfileFact",
        0.4,
        "The user is short-sighted and wears contact lenses.",
    ),
    (
        "feels-home",
        "2024-12-07",
        "EmotionalState",
        0.5,
        "The user says the new flat finally feels like home now that the puppy sleeps at "
        "the foot of her bed.",
    ),
)

GROUPS: dict[str, tuple[str, ...]] = {
    "grandma-call": ("grandma-call-a", "grandma-call-b", "grandma-call-c"),
    "karthik": ("karthik-a", "karthik-b"),
    "sketching": ("sketch-a", "sketch-b", "sketch-c"),
    "rcb": ("rcb-a", "rcb-b"),
    "traffic": ("traffic-a", "traffic-b"),
    "insomnia": ("insomnia-a", "insomnia-b"),
}
"""Paraphrase groups: one fact said again in other words."""

CHAINS: dict[str, tuple[str, ...]] = {
    "dog": ("dog-1", "dog-2", "dog-3"),
    "engagement": ("engaged-1", "engaged-2"),
    "exercise": ("exercise-1", "exercise-2"),
    "drink": ("drink-1", "drink-2"),
    "home": ("home-1", "home-2"),
}
"""Changed facts: the steps of each, oldest first."""

TRIVIAL: tuple[str, ...] = ("idli", "internet", "umbrella", "haircut")
"""Stale, low-value memories: candidates for retirement."""

LOOK_ALIKES: tuple[tuple[str, str, str], ...] = (
    ("mango-fruit", "mango-pickle", "opposite"),
    ("monsoon-evenings", "monsoon-scooter", "opposite"),
    ("karthik-a", "meera-engineering", "other entity"),
    ("dust-allergy", "ibuprofen", "other aspect"),
    ("author", "poet", "other aspect"),
    ("karthik-a", "karthik-isro", "other fact"),
)
"""Pairs that read alike but hold different facts: (key, key, why)."""

QUESTIONS: tuple[tuple[str, str], ...] = (
    ("What's my dog's name?", "dog"),
    ("Do I have a pet right now?", "dog"),
    ("Am I still getting married to Arjun?", "engagement"),
    ("How do I keep fit these days?", "exercise"),
    ("What do I drink to get going in the morning now?", "drink"),
    ("Where am I living at the moment?", "home"),
    ("Do I still live at home with Amma and Appa?", "home"),
)
"""Questions about changed facts: (text, chain); the chain's last step answers."""
