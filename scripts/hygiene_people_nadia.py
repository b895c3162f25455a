"""Nadia: a designer who moves from Berlin to Lisbon, changes jobs twice, leaves one partner
and finds another, and stops eating meat (September 2023 to January 2025).

One person of the memory-hygiene data set (assembled and checked in hygiene_data.py);
written for this project (MIT), fictional. ``SAID`` rows are (key, ISO date said,
MemoryType value, importance, text) in the order said.
"""

from __future__ import annotations

USER = "nadia"

SAID: tuple[tuple[str, str, str, float, str], ...] = (
    (
        "city-1",
        "2023-09-02",
        "ProfileFact",
        0.8,
        "The user lives in Berlin, in a shared flat in Neukölln with two flatmates.",
    ),
    (
        "grew-up",
        "2023-09-03",
        "ProfileFact",
        0.5,
        "The user grew up in Gdańsk and moved to Germany to study at nineteen.",
    ),
    (
        "languages",
        "2023-09-03",
        "ProfileFact",
        0.5,
        "The user speaks Polish, German and English fluently.",
    ),
    (
        "job-1",
        "2023-09-05",
        "ProfileFact",
        0.7,
        "The user works as a junior graphic designer at a branding agency in Kreuzberg.",
    ),
    (
        "coffee-a",
        "2023-09-10",
        "Preference",
        0.4,
        "The user drinks her coffee black with no sugar.",
    ),
    (
        "lunch-wrap",
        "2023-09-12",
        "EpisodicEvent",
        0.1,
        "The user had a falafel wrap for lunch on 2023-09-12.",
    ),
    (
        "dad-call-a",
        "2023-09-17",
        "Routine",
        0.6,
        "The user phones her dad in Gdańsk every Sunday morning.",
    ),
    (
        "body-boundary",
        "2023-09-20",
        "Boundary",
        0.9,
        "The user does not want any comments about her weight or her body.",
    ),
    (
        "partner-1",
        "2023-09-24",
        "RelationshipFact",
        0.7,
        "The user is in a relationship with Felix, a sound engineer she met at a gig.",
    ),
    (
        "migraine-a",
        "2023-10-02",
        "ProfileFact",
        0.6,
        "The user gets migraines when she sleeps badly.",
    ),
    (
        "diet-1",
        "2023-10-08",
        "Preference",
        0.5,
        "The user eats meat happily and says nothing beats her mum's pork roast.",
    ),
    (
        "wrist",
        "2023-10-14",
        "EpisodicEvent",
        0.6,
        "The user broke her left wrist in October 2023 when her bike wheel caught a wet "
        "tram track.",
    ),
    (
        "socks",
        "2023-10-21",
        "EpisodicEvent",
        0.1,
        "The user spent the evening of 2023-10-21 sorting her sock drawer.",
    ),
    (
        "sail-goal",
        "2023-11-05",
        "Goal",
        0.6,
        "The user wants to learn to sail before she turns thirty-five.",
    ),
    (
        "night-owl-a",
        "2023-11-12",
        "ProfileFact",
        0.5,
        "The user is a night owl and does her best work after ten in the evening.",
    ),
    (
        "phone-1",
        "2023-11-18",
        "ProfileFact",
        0.3,
        "The user has an old iPhone 8 with a badly cracked screen.",
    ),
    (
        "late-train",
        "2023-11-29",
        "EpisodicEvent",
        0.1,
        "The user's train to work was ten minutes late on 2023-11-29.",
    ),
    (
        "reading",
        "2023-12-01",
        "Routine",
        0.4,
        "The user reads for half an hour in bed every night before going to sleep.",
    ),
    (
        "brother-climb-a",
        "2023-12-09",
        "RelationshipFact",
        0.6,
        "The user's brother Kuba is a keen rock climber.",
    ),
    (
        "choc-milk",
        "2023-12-22",
        "Preference",
        0.4,
        "The user loves milk chocolate, especially the kind with whole hazelnuts.",
    ),
    (
        "film",
        "2024-01-10",
        "Preference",
        0.4,
        "The user's favourite film is 'Amélie', which she rewatches every winter.",
    ),
    (
        "plants-day",
        "2024-01-16",
        "EpisodicEvent",
        0.1,
        "The user watered the plants and did two loads of laundry on 2024-01-16.",
    ),
    (
        "dad-call-b",
        "2024-01-21",
        "Routine",
        0.6,
        "Sunday mornings are reserved for the user's weekly call with her father.",
    ),
    (
        "plants-a",
        "2024-01-28",
        "Preference",
        0.4,
        "The user loves houseplants and owns more than thirty of them.",
    ),
    (
        "coffee-b",
        "2024-02-02",
        "Preference",
        0.4,
        "The user takes her coffee plain: no milk, nothing sweet.",
    ),
    (
        "spiders",
        "2024-02-18",
        "ProfileFact",
        0.4,
        "The user is terrified of spiders and can't even look at pictures of them.",
    ),
    (
        "diet-2",
        "2024-02-25",
        "Preference",
        0.7,
        "The user has gone vegetarian after watching a documentary about factory farming.",
    ),
    (
        "grandma",
        "2024-03-09",
        "RelationshipFact",
        0.6,
        "The user's late grandmother Zofia taught her to bake poppy-seed cake.",
    ),
    (
        "allergy-penicillin",
        "2024-03-17",
        "ProfileFact",
        0.8,
        "The user is allergic to penicillin; it gave her a bad rash as a teenager.",
    ),
    (
        "job-2",
        "2024-03-30",
        "ProfileFact",
        0.7,
        "The user quit the agency at the end of March 2024 and is now freelancing as an "
        "illustrator.",
    ),
    (
        "partner-2",
        "2024-04-07",
        "RelationshipFact",
        0.7,
        "The user and Felix split up after two years together; she says it was mutual.",
    ),
    (
        "migraine-b",
        "2024-04-15",
        "ProfileFact",
        0.6,
        "A bad night usually means a pounding headache the next day for the user, often "
        "a full migraine.",
    ),
    (
        "choc-dark",
        "2024-05-03",
        "Preference",
        0.4,
        "The user dislikes dark chocolate and finds it too bitter.",
    ),
    (
        "brother-climb-b",
        "2024-05-11",
        "RelationshipFact",
        0.6,
        "Kuba, the user's brother, spends nearly every weekend on a climbing wall or out "
        "on a crag.",
    ),
    (
        "kuba-physio",
        "2024-05-26",
        "RelationshipFact",
        0.5,
        "The user's brother Kuba works as a physiotherapist in Gdańsk.",
    ),
    (
        "city-2",
        "2024-06-22",
        "ProfileFact",
        0.8,
        "The user has finally moved: her new flat is in Lisbon's Graça district and has "
        "a tiny balcony.",
    ),
    (
        "allergy-cats",
        "2024-07-06",
        "ProfileFact",
        0.6,
        "The user is allergic to cats and starts sneezing within minutes of being near one.",
    ),
    (
        "lonely",
        "2024-07-20",
        "EmotionalState",
        0.6,
        "The user has been feeling lonely since the move because she hardly knows anyone "
        "in the city yet.",
    ),
    (
        "sea-swim",
        "2024-07-28",
        "Preference",
        0.4,
        "The user enjoys swimming in the sea, the colder the better.",
    ),
    (
        "night-owl-b",
        "2024-08-03",
        "ProfileFact",
        0.5,
        "The user says her head only really clears up late at night, which is when she "
        "gets most done.",
    ),
    (
        "phone-2",
        "2024-08-17",
        "ProfileFact",
        0.3,
        "The user treated herself to a Pixel 8 and finally retired the cracked iPhone.",
    ),
    (
        "ania-physio",
        "2024-08-24",
        "RelationshipFact",
        0.5,
        "The user's old flatmate Ania works as a physiotherapist in Munich.",
    ),
    (
        "tattoo",
        "2024-09-12",
        "EpisodicEvent",
        0.5,
        "The user got her first tattoo, a small swallow on her ankle, in September 2024.",
    ),
    (
        "pool-swim",
        "2024-09-28",
        "Preference",
        0.4,
        "The user hates swimming in indoor pools because the chlorine makes her eyes sting.",
    ),
    (
        "coffee-c",
        "2024-10-05",
        "Preference",
        0.4,
        "User mentioned she orders a bica every morning, strong and unsweetened, and "
        "never with milk.",
    ),
    (
        "book",
        "2024-10-12",
        "Preference",
        0.4,
        "The user's favourite book is 'The Master and Margarita'.",
    ),
    (
        "plants-b",
        "2024-10-19",
        "Preference",
        0.4,
        "The user's new place is basically a jungle; she can't stop buying plants.",
    ),
    (
        "kuba-wedding",
        "2024-10-27",
        "RelationshipFact",
        0.6,
        "The user's brother Kuba is getting married in Sopot in August 2025.",
    ),
    (
        "dad-call-c",
        "2024-11-10",
        "Routine",
        0.6,
        "The user said she never misses the Sunday phone call with her dad back in Poland.",
    ),
    (
        "job-3",
        "2024-11-22",
        "ProfileFact",
        0.7,
        "The user has taken a full-time job as art director at a small publishing house in Lisbon.",
    ),
    (
        "brother-climb-c",
        "2024-12-01",
        "RelationshipFact",
        0.6,
        "User mentioned Kuba is obsessed with bouldering and climbs whenever he gets the chance.",
    ),
    (
        "partner-3",
        "2024-12-14",
        "RelationshipFact",
        0.7,
        "The user has been seeing a woman called Inês, whom she met at a ceramics class.",
    ),
)

GROUPS: dict[str, tuple[str, ...]] = {
    "coffee": ("coffee-a", "coffee-b", "coffee-c"),
    "dad-call": ("dad-call-a", "dad-call-b", "dad-call-c"),
    "migraine": ("migraine-a", "migraine-b"),
    "night-owl": ("night-owl-a", "night-owl-b"),
    "brother-climb": ("brother-climb-a", "brother-climb-b", "brother-climb-c"),
    "plants": ("plants-a", "plants-b"),
}
"""Paraphrase groups: one fact said again in other words."""

CHAINS: dict[str, tuple[str, ...]] = {
    "city": ("city-1", "city-2"),
    "job": ("job-1", "job-2", "job-3"),
    "partner": ("partner-1", "partner-2", "partner-3"),
    "diet": ("diet-1", "diet-2"),
    "phone": ("phone-1", "phone-2"),
}
"""Changed facts: the steps of each, oldest first."""

TRIVIAL: tuple[str, ...] = ("lunch-wrap", "socks", "late-train", "plants-day")
"""Stale, low-value memories: candidates for retirement."""

LOOK_ALIKES: tuple[tuple[str, str, str], ...] = (
    ("choc-milk", "choc-dark", "opposite"),
    ("sea-swim", "pool-swim", "opposite"),
    ("kuba-physio", "ania-physio", "other entity"),
    ("allergy-penicillin", "allergy-cats", "other aspect"),
    ("film", "book", "other aspect"),
    ("brother-climb-a", "kuba-wedding", "other fact"),
)
"""Pairs that read alike but hold different facts: (key, key, why)."""

QUESTIONS: tuple[tuple[str, str], ...] = (
    ("Which city am I based in at the moment?", "city"),
    ("Where's home for me these days?", "city"),
    ("What am I doing for a living right now?", "job"),
    ("Who do I work for nowadays?", "job"),
    ("Am I seeing anyone at the moment?", "partner"),
    ("Do I still eat meat?", "diet"),
    ("What's my diet like now?", "diet"),
    ("Which smartphone do I carry these days?", "phone"),
)
"""Questions about changed facts: (text, chain); the chain's last step answers."""
