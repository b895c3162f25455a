"""Elif: an architect in Istanbul who has twins, goes part-time and then opens her own studio,
learns to drive, and cuts coffee out and back in; her sister changes careers (April 2023 to
September 2024).

One person of the memory-hygiene data set (assembled and checked in hygiene_data.py);
written for this project (MIT), fictional. ``SAID`` rows are (key, ISO date said,
MemoryType value, importance, text) in the order said.
"""

from __future__ import annotations

USER = "elif"

SAID: tuple[tuple[str, str, str, float, str], ...] = (
    (
        "job-1",
        "2023-04-01",
        "ProfileFact",
        0.7,
        "The user is an architect at a large firm in Istanbul that designs shopping malls.",
    ),
    (
        "twins-1",
        "2023-04-01",
        "ProfileFact",
        0.9,
        "The user is pregnant with twins, due at the start of September 2023.",
    ),
    (
        "izmir",
        "2023-04-02",
        "ProfileFact",
        0.5,
        "The user grew up in Izmir and moved to Istanbul for university.",
    ),
    ("coffee-1", "2023-04-08", "Routine", 0.4, "The user drinks about four Turkish coffees a day."),
    (
        "simit",
        "2023-04-11",
        "EpisodicEvent",
        0.1,
        "The user had a simit and tea on the ferry on 2023-04-11.",
    ),
    (
        "can-engineer",
        "2023-04-15",
        "RelationshipFact",
        0.7,
        "The user's husband Can is a civil engineer who works on bridges.",
    ),
    (
        "ferry-a",
        "2023-04-16",
        "Preference",
        0.5,
        "The user loves taking the ferry across the Bosphorus.",
    ),
    (
        "chair",
        "2023-04-22",
        "EpisodicEvent",
        0.1,
        "The user repainted a kitchen chair on 2023-04-22.",
    ),
    (
        "licence-1",
        "2023-04-29",
        "ProfileFact",
        0.4,
        "The user doesn't have a driving licence and gets around by ferry and metro.",
    ),
    ("printer", "2023-05-04", "EpisodicEvent", 0.1, "The user's printer jammed on 2023-05-04."),
    (
        "sister-job-1",
        "2023-05-06",
        "RelationshipFact",
        0.6,
        "The user's sister Zeynep is a nurse at a hospital in Ankara.",
    ),
    (
        "cats-a",
        "2023-05-13",
        "Routine",
        0.5,
        "The user feeds the street cats in her neighbourhood.",
    ),
    ("curtains", "2023-05-19", "EpisodicEvent", 0.1, "The user bought new curtains on 2023-05-19."),
    (
        "coffee-2",
        "2023-05-27",
        "Routine",
        0.5,
        "The user has given up caffeine for the pregnancy and only drinks herbal tea.",
    ),
    (
        "films-a",
        "2023-06-10",
        "Preference",
        0.4,
        "The user loves old Turkish films from the sixties.",
    ),
    (
        "dogs-fear",
        "2023-06-24",
        "ProfileFact",
        0.5,
        "The user is afraid of dogs after being bitten as a child.",
    ),
    ("autumn", "2023-07-08", "Preference", 0.4, "The user loves rainy autumn days in Istanbul."),
    (
        "humid-summer",
        "2023-07-22",
        "Preference",
        0.4,
        "The user hates the sticky, humid Istanbul summers.",
    ),
    (
        "twins-2",
        "2023-08-28",
        "RelationshipFact",
        0.9,
        "The user gave birth to twin boys, Deniz and Kaan, on 28 August 2023.",
    ),
    (
        "ferry-b",
        "2023-09-16",
        "Preference",
        0.5,
        "Crossing the Bosphorus by boat is the user's favourite part of any day.",
    ),
    (
        "sleep-a",
        "2023-10-07",
        "EmotionalState",
        0.6,
        "The user is surviving on about four hours of sleep a night since the twins arrived.",
    ),
    (
        "mil-a",
        "2023-10-21",
        "RelationshipFact",
        0.6,
        "The user's mother-in-law comes round every day and it's wearing her down.",
    ),
    (
        "advice-boundary",
        "2023-11-04",
        "Boundary",
        0.9,
        "The user does not want parenting advice unless she asks for it.",
    ),
    (
        "twins-calm-a",
        "2023-11-18",
        "RelationshipFact",
        0.5,
        "The user says Deniz is the calm twin and Kaan is the loud one.",
    ),
    (
        "cats-b",
        "2023-12-02",
        "Routine",
        0.5,
        "The user always carries a bag of cat food for the strays on her street.",
    ),
    (
        "sleep-b",
        "2023-12-16",
        "EmotionalState",
        0.6,
        "The user is badly sleep-deprived; one of the babies is always awake.",
    ),
    (
        "grandfather",
        "2024-01-13",
        "EpisodicEvent",
        0.7,
        "The user's grandfather passed away in Izmir in January 2024.",
    ),
    (
        "job-2",
        "2024-01-27",
        "ProfileFact",
        0.7,
        "The user went back to the firm after maternity leave, but only three days a week.",
    ),
    (
        "mil-b",
        "2024-02-10",
        "RelationshipFact",
        0.6,
        "The user finds her husband's mother's daily visits exhausting.",
    ),
    (
        "films-b",
        "2024-02-24",
        "Preference",
        0.4,
        "The user's guilty pleasure is black-and-white Yeşilçam melodramas.",
    ),
    (
        "licence-2",
        "2024-03-16",
        "ProfileFact",
        0.5,
        "The user passed her driving test in March 2024 on the second try and drives a "
        "small Fiat now.",
    ),
    ("brutalism", "2024-03-30", "Preference", 0.4, "The user loves brutalist concrete buildings."),
    (
        "emre-nurse",
        "2024-04-13",
        "RelationshipFact",
        0.5,
        "The user's brother Emre is a nurse in Izmir.",
    ),
    (
        "coffee-3",
        "2024-04-27",
        "Routine",
        0.5,
        "The user is back on coffee, but just one cup in the morning.",
    ),
    (
        "heights",
        "2024-05-11",
        "ProfileFact",
        0.5,
        "The user is afraid of heights and won't go up the Galata Tower.",
    ),
    (
        "twins-calm-b",
        "2024-05-25",
        "RelationshipFact",
        0.5,
        "Of the user's twins, Kaan is the noisy one while Deniz hardly ever fusses.",
    ),
    (
        "sister-job-2",
        "2024-06-08",
        "RelationshipFact",
        0.6,
        "The user's sister Zeynep quit nursing and now teaches biology at a high school.",
    ),
    (
        "glass-towers",
        "2024-06-15",
        "Preference",
        0.4,
        "The user dislikes glass skyscrapers and finds them soulless.",
    ),
    (
        "ferry-c",
        "2024-06-22",
        "Preference",
        0.5,
        "User said the boat ride between the European and Asian sides never gets old for her.",
    ),
    (
        "selin",
        "2024-06-29",
        "RelationshipFact",
        0.5,
        "The user's best friend Selin works as an architect in Ankara.",
    ),
    (
        "can-oud",
        "2024-07-06",
        "RelationshipFact",
        0.5,
        "The user's husband Can is learning to play the oud.",
    ),
    (
        "burak",
        "2024-07-13",
        "RelationshipFact",
        0.5,
        "The user's cousin Burak works as an architect in Berlin.",
    ),
    (
        "stone-house-goal",
        "2024-07-20",
        "Goal",
        0.6,
        "The user dreams of restoring an old stone house in the Aegean countryside.",
    ),
    (
        "job-3",
        "2024-08-03",
        "ProfileFact",
        0.8,
        "The user has left the big firm and opened her own small studio restoring old houses.",
    ),
    (
        "cats-c",
        "2024-08-17",
        "Routine",
        0.5,
        "User mentioned the neighbourhood cats wait at her door every evening for their dinner.",
    ),
    (
        "tiles",
        "2024-08-31",
        "Preference",
        0.4,
        "The user loves Iznik tiles and their blue patterns.",
    ),
    (
        "breakfast",
        "2024-09-14",
        "Routine",
        0.4,
        "The user and Can have a long breakfast on the balcony every Sunday.",
    ),
)

GROUPS: dict[str, tuple[str, ...]] = {
    "ferry": ("ferry-a", "ferry-b", "ferry-c"),
    "street-cats": ("cats-a", "cats-b", "cats-c"),
    "sleep": ("sleep-a", "sleep-b"),
    "mother-in-law": ("mil-a", "mil-b"),
    "old-films": ("films-a", "films-b"),
    "twins-temperament": ("twins-calm-a", "twins-calm-b"),
}
"""Paraphrase groups: one fact said again in other words."""

CHAINS: dict[str, tuple[str, ...]] = {
    "job": ("job-1", "job-2", "job-3"),
    "twins": ("twins-1", "twins-2"),
    "licence": ("licence-1", "licence-2"),
    "sister-job": ("sister-job-1", "sister-job-2"),
    "coffee": ("coffee-1", "coffee-2", "coffee-3"),
}
"""Changed facts: the steps of each, oldest first."""

TRIVIAL: tuple[str, ...] = ("simit", "chair", "printer", "curtains")
"""Stale, low-value memories: candidates for retirement."""

LOOK_ALIKES: tuple[tuple[str, str, str], ...] = (
    ("autumn", "humid-summer", "opposite"),
    ("brutalism", "glass-towers", "opposite"),
    ("sister-job-1", "emre-nurse", "other entity"),
    ("selin", "burak", "other entity"),
    ("dogs-fear", "heights", "other aspect"),
    ("can-engineer", "can-oud", "other fact"),
)
"""Pairs that read alike but hold different facts: (key, key, why)."""

QUESTIONS: tuple[tuple[str, str], ...] = (
    ("What's my work situation right now?", "job"),
    ("Am I still at that big practice?", "job"),
    ("Have the babies arrived yet?", "twins"),
    ("Am I allowed behind the wheel yet?", "licence"),
    ("What does Zeynep do for a living these days?", "sister-job"),
    ("How much caffeine am I having lately?", "coffee"),
    ("Am I still off coffee?", "coffee"),
)
"""Questions about changed facts: (text, chain); the chain's last step answers."""
