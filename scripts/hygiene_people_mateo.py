"""Mateo: a student from Buenos Aires who goes on exchange to Montreal, switches degree, loses
his phone and his long-distance girlfriend, and finds a new favourite food (August 2023 to
March 2024).

One person of the memory-hygiene data set (assembled and checked in hygiene_data.py);
written for this project (MIT), fictional. ``SAID`` rows are (key, ISO date said,
MemoryType value, importance, text) in the order said.
"""

from __future__ import annotations

USER = "mateo"

SAID: tuple[tuple[str, str, str, float, str], ...] = (
    (
        "city-1",
        "2023-08-05",
        "ProfileFact",
        0.8,
        "The user lives with his parents and two younger siblings in Palermo, Buenos Aires.",
    ),
    (
        "age",
        "2023-08-05",
        "ProfileFact",
        0.5,
        "The user is twenty-two and the eldest of three siblings.",
    ),
    (
        "major-1",
        "2023-08-06",
        "ProfileFact",
        0.7,
        "The user studies economics at the University of Buenos Aires.",
    ),
    (
        "partner-1",
        "2023-08-08",
        "RelationshipFact",
        0.7,
        "The user has a girlfriend, Sofía, who studies medicine in Buenos Aires.",
    ),
    (
        "mate-a",
        "2023-08-10",
        "Routine",
        0.4,
        "The user drinks mate every morning from a gourd his grandfather gave him.",
    ),
    (
        "empanadas",
        "2023-08-12",
        "EpisodicEvent",
        0.1,
        "The user ate empanadas at a friend's place on 2023-08-12.",
    ),
    ("river-a", "2023-08-13", "Preference", 0.5, "The user is a die-hard River Plate supporter."),
    (
        "food-1",
        "2023-08-15",
        "Preference",
        0.4,
        "The user's favourite food is his grandmother's milanesa with mashed potatoes.",
    ),
    ("phone-1", "2023-08-19", "ProfileFact", 0.3, "The user's phone is a Samsung Galaxy A52."),
    (
        "mh-boundary",
        "2023-08-20",
        "Boundary",
        0.9,
        "The user does not want to talk about the depression he went through in 2021.",
    ),
    (
        "valentina-a",
        "2023-08-22",
        "RelationshipFact",
        0.6,
        "The user's little sister Valentina is a talented gymnast.",
    ),
    (
        "bus-card",
        "2023-08-25",
        "EpisodicEvent",
        0.1,
        "The user topped up his bus card on 2023-08-25.",
    ),
    ("soda-a", "2023-08-27", "Preference", 0.4, "The user's favourite band is Soda Stereo."),
    ("mornings-a", "2023-08-29", "ProfileFact", 0.4, "The user is terrible at getting up early."),
    (
        "city-2",
        "2023-09-01",
        "ProfileFact",
        0.8,
        "The user has landed in Montreal for his exchange year and is living in a "
        "student residence near McGill.",
    ),
    (
        "documentary",
        "2023-09-03",
        "EpisodicEvent",
        0.1,
        "The user watched a documentary about sharks on 2023-09-03.",
    ),
    (
        "french-goal",
        "2023-09-06",
        "Goal",
        0.7,
        "The user wants to be fluent in French by the end of his exchange.",
    ),
    (
        "asthma",
        "2023-09-09",
        "ProfileFact",
        0.8,
        "The user has asthma and always carries an inhaler.",
    ),
    (
        "laptop",
        "2023-09-15",
        "EpisodicEvent",
        0.1,
        "The user's laptop battery died in the middle of a lecture on 2023-09-15.",
    ),
    (
        "theo",
        "2023-09-17",
        "RelationshipFact",
        0.5,
        "The user's roommate Théo is from Quebec City.",
    ),
    (
        "mate-b",
        "2023-09-20",
        "Routine",
        0.4,
        "The user's day doesn't start until he has had his mate, even in Canada.",
    ),
    (
        "library",
        "2023-09-24",
        "Preference",
        0.4,
        "The user likes studying in libraries where it is completely silent.",
    ),
    (
        "river-b",
        "2023-09-30",
        "Preference",
        0.5,
        "The user bleeds red and white; River is his team, full stop.",
    ),
    (
        "major-2",
        "2023-10-07",
        "ProfileFact",
        0.7,
        "The user has switched his degree from economics to computer science.",
    ),
    (
        "homesick",
        "2023-10-12",
        "EmotionalState",
        0.6,
        "The user is homesick and misses his family's Sunday asados.",
    ),
    (
        "valentina-b",
        "2023-10-15",
        "RelationshipFact",
        0.6,
        "Valentina, the user's younger sister, competes in gymnastics and has won regional medals.",
    ),
    (
        "amelie",
        "2023-10-21",
        "RelationshipFact",
        0.5,
        "The user's classmate Amélie is from Quebec City.",
    ),
    (
        "cafe-study",
        "2023-10-28",
        "Preference",
        0.4,
        "The user can't stand studying in cafés; the noise kills his focus.",
    ),
    (
        "phone-2",
        "2023-11-04",
        "ProfileFact",
        0.3,
        "The user's phone was stolen on the metro, so he is using his cousin's old iPhone 11.",
    ),
    (
        "snow",
        "2023-11-11",
        "EpisodicEvent",
        0.6,
        "The user saw snow for the first time in his life in Montreal in November 2023.",
    ),
    (
        "mornings-b",
        "2023-11-14",
        "ProfileFact",
        0.4,
        "Mornings are a struggle for the user; he sleeps straight through his alarms.",
    ),
    ("cold-a", "2023-11-25", "EmotionalState", 0.4, "The user finds the Canadian cold brutal."),
    (
        "partner-2",
        "2023-12-02",
        "RelationshipFact",
        0.7,
        "The user and Sofía broke up; the distance was too much for both of them.",
    ),
    (
        "dulce",
        "2023-12-09",
        "Preference",
        0.4,
        "The user loves dulce de leche and puts it on everything.",
    ),
    (
        "lucas",
        "2023-12-16",
        "RelationshipFact",
        0.5,
        "The user's cousin Lucas competes in gymnastics in Córdoba.",
    ),
    (
        "soda-b",
        "2023-12-22",
        "Preference",
        0.4,
        "The user knows every Soda Stereo song by heart and calls them the greatest band ever.",
    ),
    (
        "heart-murmur",
        "2024-01-06",
        "ProfileFact",
        0.6,
        "The user has a heart murmur that doctors say is harmless.",
    ),
    (
        "cold-b",
        "2024-01-13",
        "EmotionalState",
        0.4,
        "The user says Montreal's winter is like nothing he has ever felt; his face "
        "hurts when he goes outside.",
    ),
    (
        "food-2",
        "2024-01-20",
        "Preference",
        0.4,
        "The user has fallen for poutine and says it has replaced milanesa as his favourite food.",
    ),
    (
        "maple",
        "2024-01-27",
        "Preference",
        0.4,
        "The user dislikes maple taffy; he finds it far too sweet.",
    ),
    (
        "river-c",
        "2024-02-03",
        "Preference",
        0.5,
        "User mentioned he gets up at odd hours in Montreal to stream every River match.",
    ),
    (
        "valentina-party",
        "2024-02-10",
        "EpisodicEvent",
        0.5,
        "The user's sister Valentina turns fifteen in March 2024 and is planning a big "
        "quinceañera.",
    ),
    (
        "drums",
        "2024-02-17",
        "ProfileFact",
        0.4,
        "The user plays the drums and misses his kit back home.",
    ),
    (
        "partner-3",
        "2024-03-02",
        "RelationshipFact",
        0.7,
        "The user has started dating Chloé, a girl from his French conversation group.",
    ),
)

GROUPS: dict[str, tuple[str, ...]] = {
    "river-plate": ("river-a", "river-b", "river-c"),
    "mate": ("mate-a", "mate-b"),
    "mornings": ("mornings-a", "mornings-b"),
    "valentina-gymnast": ("valentina-a", "valentina-b"),
    "cold": ("cold-a", "cold-b"),
    "soda-stereo": ("soda-a", "soda-b"),
}
"""Paraphrase groups: one fact said again in other words."""

CHAINS: dict[str, tuple[str, ...]] = {
    "city": ("city-1", "city-2"),
    "partner": ("partner-1", "partner-2", "partner-3"),
    "major": ("major-1", "major-2"),
    "phone": ("phone-1", "phone-2"),
    "food": ("food-1", "food-2"),
}
"""Changed facts: the steps of each, oldest first."""

TRIVIAL: tuple[str, ...] = ("empanadas", "bus-card", "documentary", "laptop")
"""Stale, low-value memories: candidates for retirement."""

LOOK_ALIKES: tuple[tuple[str, str, str], ...] = (
    ("dulce", "maple", "opposite"),
    ("library", "cafe-study", "opposite"),
    ("valentina-a", "lucas", "other entity"),
    ("theo", "amelie", "other entity"),
    ("asthma", "heart-murmur", "other aspect"),
    ("valentina-a", "valentina-party", "other fact"),
)
"""Pairs that read alike but hold different facts: (key, key, why)."""

QUESTIONS: tuple[tuple[str, str], ...] = (
    ("Where am I living right now?", "city"),
    ("Am I still at my parents' place?", "city"),
    ("Do I have a girlfriend at the moment?", "partner"),
    ("Who am I going out with?", "partner"),
    ("What's my degree in?", "major"),
    ("What mobile have I got these days?", "phone"),
    ("Which dish do I love most nowadays?", "food"),
)
"""Questions about changed facts: (text, chain); the chain's last step answers."""
