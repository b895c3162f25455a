"""Kofi: a nurse in Leeds who leaves A&E for district nursing, swaps his car, tries and drops
a hobby, and whose sister changes careers (May 2023 to August 2024).

One person of the memory-hygiene data set (assembled and checked in hygiene_data.py);
written for this project (MIT), fictional. ``SAID`` rows are (key, ISO date said,
MemoryType value, importance, text) in the order said.
"""

from __future__ import annotations

USER = "kofi"

SAID: tuple[tuple[str, str, str, float, str], ...] = (
    (
        "job-1",
        "2023-05-06",
        "ProfileFact",
        0.7,
        "The user works as a nurse in the emergency department at Leeds General Infirmary.",
    ),
    (
        "accra",
        "2023-05-06",
        "ProfileFact",
        0.5,
        "The user was born in Accra and came to the UK in 2015 to study nursing.",
    ),
    (
        "diabetes",
        "2023-05-13",
        "ProfileFact",
        0.8,
        "The user has type 1 diabetes and wears a glucose sensor on his arm.",
    ),
    (
        "esi-dino-a",
        "2023-05-14",
        "RelationshipFact",
        0.6,
        "The user's daughter Esi is six and completely obsessed with dinosaurs.",
    ),
    (
        "beans",
        "2023-05-16",
        "EpisodicEvent",
        0.1,
        "The user had beans on toast for tea on 2023-05-16.",
    ),
    (
        "covid-boundary",
        "2023-05-20",
        "Boundary",
        0.9,
        "The user does not want to talk about working on the Covid wards in 2020.",
    ),
    (
        "jollof-a",
        "2023-05-27",
        "Preference",
        0.5,
        "The user says his mum makes the best jollof rice he has ever tasted.",
    ),
    (
        "football-a",
        "2023-06-07",
        "Routine",
        0.5,
        "The user plays five-a-side football every Wednesday evening.",
    ),
    (
        "peaks-goal",
        "2023-06-11",
        "Goal",
        0.6,
        "The user wants to complete the Yorkshire Three Peaks challenge in summer 2024.",
    ),
    (
        "shifts-early",
        "2023-06-17",
        "Preference",
        0.5,
        "The user likes early shifts because he is a morning person.",
    ),
    (
        "bus",
        "2023-06-20",
        "EpisodicEvent",
        0.1,
        "The user's bus was diverted because of roadworks on 2023-06-20.",
    ),
    (
        "car-1",
        "2023-06-24",
        "ProfileFact",
        0.4,
        "The user drives an old silver Ford Focus that keeps failing its MOT.",
    ),
    (
        "shy-a",
        "2023-07-08",
        "EmotionalState",
        0.5,
        "The user gets very nervous when he has to speak in front of a group.",
    ),
    (
        "sister-job-1",
        "2023-07-15",
        "RelationshipFact",
        0.6,
        "The user's sister Abena teaches Year 4 at a primary school in Bradford.",
    ),
    (
        "deposit-goal",
        "2023-07-30",
        "Goal",
        0.6,
        "The user is saving up for a deposit on a house with a garden.",
    ),
    (
        "socks",
        "2023-08-01",
        "EpisodicEvent",
        0.1,
        "The user bought a new pack of socks on 2023-08-01.",
    ),
    (
        "hobby-1",
        "2023-08-05",
        "ProfileFact",
        0.4,
        "The user has started learning the saxophone, with lessons on Saturday mornings.",
    ),
    (
        "highlife-a",
        "2023-08-19",
        "Preference",
        0.4,
        "The user loves old highlife music, especially E.T. Mensah.",
    ),
    (
        "shifts-night",
        "2023-08-26",
        "Preference",
        0.5,
        "The user hates night shifts and dreads the rota coming out each month.",
    ),
    (
        "cooking-show",
        "2023-09-02",
        "EpisodicEvent",
        0.1,
        "The user watched a cooking show on the evening of 2023-09-02.",
    ),
    (
        "podcasts",
        "2023-09-09",
        "Preference",
        0.4,
        "The user listens to history podcasts on his way to work.",
    ),
    (
        "food-1",
        "2023-09-16",
        "Preference",
        0.4,
        "The user's favourite takeaway is a chicken katsu curry.",
    ),
    (
        "esi-dino-b",
        "2023-09-23",
        "RelationshipFact",
        0.6,
        "Esi, the user's little girl, can name more dinosaurs than he can.",
    ),
    (
        "cousin-teacher",
        "2023-10-07",
        "RelationshipFact",
        0.5,
        "The user's cousin Yaw teaches maths at a secondary school in Kumasi.",
    ),
    (
        "jollof-b",
        "2023-10-14",
        "Preference",
        0.5,
        "Nobody's jollof comes close to his mother's, according to the user.",
    ),
    (
        "cold-a",
        "2023-10-28",
        "ProfileFact",
        0.4,
        "The user feels the cold badly and keeps his winter coat on until June.",
    ),
    (
        "hobby-2",
        "2023-11-11",
        "ProfileFact",
        0.4,
        "The user gave up the saxophone after three months; it was far too loud for his flat.",
    ),
    (
        "arsenal",
        "2023-11-18",
        "Preference",
        0.5,
        "The user supports Arsenal and watches every match he can.",
    ),
    (
        "football-b",
        "2023-12-13",
        "Routine",
        0.5,
        "Wednesday nights are for five-a-side with the user's mates from the hospital.",
    ),
    (
        "wedding-accra",
        "2023-12-28",
        "EpisodicEvent",
        0.6,
        "The user flew to Accra for his cousin Ama's wedding over Christmas 2023.",
    ),
    (
        "jollof-c",
        "2024-01-06",
        "Preference",
        0.5,
        "User said that whenever he goes home, his mum's jollof is the first thing he "
        "asks for; nothing else compares.",
    ),
    (
        "car-2",
        "2024-01-20",
        "ProfileFact",
        0.4,
        "The user finally got rid of the Focus and now drives a second-hand electric Nissan Leaf.",
    ),
    (
        "hearts",
        "2024-01-27",
        "Preference",
        0.5,
        "The user supports Accra Hearts of Oak back home in Ghana.",
    ),
    (
        "job-2",
        "2024-02-10",
        "ProfileFact",
        0.7,
        "The user has left A&E and joined a district nursing team, visiting patients in "
        "their homes.",
    ),
    (
        "hobby-3",
        "2024-02-24",
        "ProfileFact",
        0.4,
        "The user's new pastime is chess; he plays online most evenings after Esi is asleep.",
    ),
    (
        "shy-b",
        "2024-03-02",
        "EmotionalState",
        0.5,
        "Presenting at team meetings makes the user's hands shake; he hates public speaking.",
    ),
    (
        "esi-tooth",
        "2024-03-09",
        "EpisodicEvent",
        0.4,
        "The user's daughter Esi lost her first tooth in March 2024.",
    ),
    (
        "proud",
        "2024-03-16",
        "EmotionalState",
        0.5,
        "The user felt really proud after a patient's family wrote to thank him.",
    ),
    (
        "shellfish",
        "2024-03-23",
        "ProfileFact",
        0.8,
        "The user is allergic to shellfish; prawns make his throat swell.",
    ),
    (
        "cold-b",
        "2024-04-06",
        "ProfileFact",
        0.4,
        "Even in spring the user goes out wrapped in a scarf; Yorkshire never stops "
        "feeling freezing to him.",
    ),
    (
        "esi-swim",
        "2024-04-13",
        "RelationshipFact",
        0.5,
        "The user's daughter Esi is learning to swim.",
    ),
    (
        "esi-dino-c",
        "2024-04-20",
        "RelationshipFact",
        0.6,
        "User said his daughter wants to be a palaeontologist and has dinosaur posters "
        "all over her room.",
    ),
    (
        "pen-y-ghent",
        "2024-04-27",
        "EpisodicEvent",
        0.5,
        "The user hiked up Pen-y-ghent with two friends in April 2024 as training.",
    ),
    (
        "sister-job-2",
        "2024-05-18",
        "RelationshipFact",
        0.6,
        "The user's sister Abena has left teaching and started training as a midwife.",
    ),
    (
        "highlife-b",
        "2024-05-25",
        "Preference",
        0.4,
        "The user's favourite records are classic Ghanaian highlife from the fifties and sixties.",
    ),
    (
        "nephew-swim",
        "2024-06-01",
        "RelationshipFact",
        0.5,
        "The user's nephew Kwame is learning to swim at the leisure centre in Headingley.",
    ),
    (
        "football-c",
        "2024-06-05",
        "Routine",
        0.5,
        "User said he never skips his midweek five-a-side game, whatever the weather.",
    ),
    (
        "food-2",
        "2024-06-22",
        "Preference",
        0.4,
        "Lately the user's number one comfort food is tonkotsu ramen from a place near "
        "Kirkgate Market.",
    ),
    (
        "wasps",
        "2024-07-06",
        "ProfileFact",
        0.7,
        "The user is allergic to wasp stings and keeps antihistamines in the car.",
    ),
    (
        "ironing",
        "2024-08-24",
        "Routine",
        0.3,
        "The user irons his shirts on Sunday evenings while the football highlights are on.",
    ),
)

GROUPS: dict[str, tuple[str, ...]] = {
    "esi-dinosaurs": ("esi-dino-a", "esi-dino-b", "esi-dino-c"),
    "jollof": ("jollof-a", "jollof-b", "jollof-c"),
    "five-a-side": ("football-a", "football-b", "football-c"),
    "public-speaking": ("shy-a", "shy-b"),
    "highlife": ("highlife-a", "highlife-b"),
    "cold": ("cold-a", "cold-b"),
}
"""Paraphrase groups: one fact said again in other words."""

CHAINS: dict[str, tuple[str, ...]] = {
    "job": ("job-1", "job-2"),
    "car": ("car-1", "car-2"),
    "sister-job": ("sister-job-1", "sister-job-2"),
    "hobby": ("hobby-1", "hobby-2", "hobby-3"),
    "food": ("food-1", "food-2"),
}
"""Changed facts: the steps of each, oldest first."""

TRIVIAL: tuple[str, ...] = ("beans", "bus", "socks", "cooking-show")
"""Stale, low-value memories: candidates for retirement."""

LOOK_ALIKES: tuple[tuple[str, str, str], ...] = (
    ("shifts-early", "shifts-night", "opposite"),
    ("sister-job-1", "cousin-teacher", "other entity"),
    ("esi-swim", "nephew-swim", "other entity"),
    ("arsenal", "hearts", "other aspect"),
    ("shellfish", "wasps", "other aspect"),
    ("esi-dino-a", "esi-tooth", "other fact"),
)
"""Pairs that read alike but hold different facts: (key, key, why)."""

QUESTIONS: tuple[tuple[str, str], ...] = (
    ("Where am I nursing these days?", "job"),
    ("Am I still working in A&E?", "job"),
    ("What am I driving at the moment?", "car"),
    ("What does Abena do for work now?", "sister-job"),
    ("What do I do for fun these days?", "hobby"),
    ("Am I still playing an instrument?", "hobby"),
    ("What's my favourite thing to eat right now?", "food"),
)
"""Questions about changed facts: (text, chain); the chain's last step answers."""
