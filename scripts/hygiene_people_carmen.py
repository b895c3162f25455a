"""Carmen: a retired teacher, widowed, who moves from Madrid to Valencia, gets a smartphone, a
low-salt diet, a new hobby and a second grandchild (February 2023 to June 2024).

One person of the memory-hygiene data set (assembled and checked in hygiene_data.py);
written for this project (MIT), fictional. ``SAID`` rows are (key, ISO date said,
MemoryType value, importance, text) in the order said.
"""

from __future__ import annotations

USER = "carmen"

SAID: tuple[tuple[str, str, str, float, str], ...] = (
    (
        "home-1",
        "2023-02-04",
        "ProfileFact",
        0.8,
        "The user lives alone in a third-floor flat in Lavapiés, Madrid.",
    ),
    ("retired", "2023-02-04", "ProfileFact", 0.6, "The user is a retired primary school teacher."),
    (
        "manuel",
        "2023-02-11",
        "RelationshipFact",
        0.8,
        "The user's husband Manuel died in 2019 after forty years of marriage.",
    ),
    (
        "bread",
        "2023-02-14",
        "EpisodicEvent",
        0.1,
        "The user bought bread and the newspaper on 2023-02-14.",
    ),
    (
        "phone-1",
        "2023-02-18",
        "ProfileFact",
        0.4,
        "The user still uses an old flip phone and refuses to get a smartphone.",
    ),
    (
        "crossword-a",
        "2023-02-25",
        "Routine",
        0.4,
        "The user does the crossword in the newspaper every morning.",
    ),
    (
        "lentils",
        "2023-03-01",
        "EpisodicEvent",
        0.1,
        "The user had lentil stew for lunch on 2023-03-01.",
    ),
    (
        "lucia-a",
        "2023-03-04",
        "RelationshipFact",
        0.7,
        "The user's daughter Lucía works as a dentist in Valencia.",
    ),
    (
        "hospital-boundary",
        "2023-03-11",
        "Boundary",
        0.9,
        "The user does not want to talk about Manuel's last months in hospital.",
    ),
    (
        "hobby-1",
        "2023-03-18",
        "ProfileFact",
        0.5,
        "The user paints watercolours at the community centre on Tuesday afternoons.",
    ),
    (
        "ladder",
        "2023-03-22",
        "EpisodicEvent",
        0.1,
        "The user's neighbour borrowed her ladder on 2023-03-22.",
    ),
    (
        "grandkids-1",
        "2023-03-25",
        "RelationshipFact",
        0.7,
        "The user has one grandchild, Lucía's son Pablo, who is nine.",
    ),
    (
        "diet-1",
        "2023-04-01",
        "Preference",
        0.5,
        "The user eats whatever she fancies and salts everything generously.",
    ),
    (
        "quiz",
        "2023-04-10",
        "EpisodicEvent",
        0.1,
        "The user watched a quiz show on television on 2023-04-10.",
    ),
    ("cocido-a", "2023-04-15", "Preference", 0.5, "The user's speciality is cocido madrileño."),
    (
        "lift-a",
        "2023-04-29",
        "ProfileFact",
        0.5,
        "The user is afraid of lifts since she got stuck in one.",
    ),
    (
        "niece-wedding",
        "2023-05-20",
        "EpisodicEvent",
        0.6,
        "The user went to her niece Rocío's wedding in Seville in May 2023.",
    ),
    (
        "ring-a",
        "2023-06-03",
        "RelationshipFact",
        0.6,
        "The user still wears Manuel's wedding ring on a chain around her neck.",
    ),
    (
        "hearing-a",
        "2023-06-17",
        "ProfileFact",
        0.5,
        "The user is a bit hard of hearing in her right ear.",
    ),
    (
        "olives-green",
        "2023-07-01",
        "Preference",
        0.4,
        "The user likes green olives stuffed with anchovy.",
    ),
    (
        "lucia-b",
        "2023-07-15",
        "RelationshipFact",
        0.7,
        "Lucía, the user's only child, has her own dental practice down in Valencia.",
    ),
    ("pilar", "2023-07-29", "RelationshipFact", 0.5, "The user's sister Pilar lives in Seville."),
    (
        "diet-2",
        "2023-08-26",
        "Preference",
        0.7,
        "The user's doctor has put her on a low-salt diet for her blood pressure, and "
        "she is sticking to it.",
    ),
    (
        "football-tv",
        "2023-09-09",
        "Preference",
        0.4,
        "The user enjoys watching football on the television.",
    ),
    (
        "crossword-b",
        "2023-09-23",
        "Routine",
        0.4,
        "A morning crossword with her café con leche is a must for the user.",
    ),
    ("zarzuela", "2023-10-07", "Preference", 0.4, "The user loves zarzuela and old boleros."),
    (
        "hobby-2",
        "2023-10-21",
        "ProfileFact",
        0.5,
        "The user has put the paintbrushes away; her arthritis made it too fiddly, and "
        "she has joined a tango class instead.",
    ),
    (
        "lonely",
        "2023-11-04",
        "EmotionalState",
        0.6,
        "The user feels lonely in the evenings since Manuel died.",
    ),
    ("olives-black", "2023-11-18", "Preference", 0.4, "The user dislikes black olives."),
    (
        "rocio-seville",
        "2023-12-02",
        "RelationshipFact",
        0.5,
        "The user's niece Rocío lives in Seville with her new husband.",
    ),
    (
        "cocido-b",
        "2023-12-16",
        "Preference",
        0.5,
        "Everyone in the family says nobody makes a cocido like the user.",
    ),
    (
        "phone-2",
        "2024-01-06",
        "ProfileFact",
        0.5,
        "Pablo set the user up with a smartphone for Reyes, and she now sends voice "
        "notes on WhatsApp.",
    ),
    ("birthday", "2024-01-20", "ProfileFact", 0.6, "The user's birthday is on 14 February."),
    (
        "lift-b",
        "2024-02-03",
        "ProfileFact",
        0.5,
        "Since being trapped in an elevator years ago, the user always takes the stairs.",
    ),
    (
        "anniversary",
        "2024-02-14",
        "RelationshipFact",
        0.6,
        "The user's wedding anniversary with Manuel was on 14 September.",
    ),
    (
        "grandkids-2",
        "2024-03-16",
        "RelationshipFact",
        0.7,
        "Lucía had a baby girl called Alba in March 2024, so the user now has two grandchildren.",
    ),
    (
        "home-2",
        "2024-04-13",
        "ProfileFact",
        0.8,
        "The user has sold the flat in Madrid and moved to Valencia to be closer to her daughter.",
    ),
    (
        "stadium",
        "2024-04-20",
        "Preference",
        0.4,
        "The user hates going to football stadiums because of the crowds.",
    ),
    (
        "jorge-dentist",
        "2024-04-27",
        "RelationshipFact",
        0.5,
        "The user's nephew Jorge is a dentist in Madrid.",
    ),
    (
        "hearing-b",
        "2024-05-04",
        "ProfileFact",
        0.5,
        "The user sometimes misses what people say because her right ear is weak.",
    ),
    (
        "pablo-trumpet",
        "2024-05-11",
        "RelationshipFact",
        0.5,
        "The user's grandson Pablo plays the trumpet in the school band.",
    ),
    (
        "ring-b",
        "2024-05-18",
        "RelationshipFact",
        0.6,
        "The user keeps her late husband's ring on a necklace and never takes it off.",
    ),
    (
        "camino-goal",
        "2024-05-25",
        "Goal",
        0.6,
        "The user wants to walk the last stretch of the Camino de Santiago in 2025.",
    ),
    (
        "pablo-nuts",
        "2024-06-01",
        "RelationshipFact",
        0.6,
        "The user's grandson Pablo is allergic to nuts.",
    ),
    (
        "cocido-c",
        "2024-06-08",
        "Preference",
        0.5,
        "User mentioned that her slow-cooked chickpea and meat stew is the dish she's proudest of.",
    ),
    (
        "crossword-c",
        "2024-06-15",
        "Routine",
        0.4,
        "The user said she still starts every day with the crossword, even in the new flat.",
    ),
    (
        "galdos",
        "2024-06-22",
        "Preference",
        0.4,
        "The user adores the novels of Benito Pérez Galdós.",
    ),
)

GROUPS: dict[str, tuple[str, ...]] = {
    "lucia-dentist": ("lucia-a", "lucia-b"),
    "crossword": ("crossword-a", "crossword-b", "crossword-c"),
    "cocido": ("cocido-a", "cocido-b", "cocido-c"),
    "lifts": ("lift-a", "lift-b"),
    "hearing": ("hearing-a", "hearing-b"),
    "ring": ("ring-a", "ring-b"),
}
"""Paraphrase groups: one fact said again in other words."""

CHAINS: dict[str, tuple[str, ...]] = {
    "home": ("home-1", "home-2"),
    "phone": ("phone-1", "phone-2"),
    "diet": ("diet-1", "diet-2"),
    "hobby": ("hobby-1", "hobby-2"),
    "grandchildren": ("grandkids-1", "grandkids-2"),
}
"""Changed facts: the steps of each, oldest first."""

TRIVIAL: tuple[str, ...] = ("bread", "lentils", "ladder", "quiz")
"""Stale, low-value memories: candidates for retirement."""

LOOK_ALIKES: tuple[tuple[str, str, str], ...] = (
    ("olives-green", "olives-black", "opposite"),
    ("football-tv", "stadium", "opposite"),
    ("lucia-a", "jorge-dentist", "other entity"),
    ("pilar", "rocio-seville", "other entity"),
    ("birthday", "anniversary", "other aspect"),
    ("pablo-trumpet", "pablo-nuts", "other fact"),
)
"""Pairs that read alike but hold different facts: (key, key, why)."""

QUESTIONS: tuple[tuple[str, str], ...] = (
    ("Which city do I call home now?", "home"),
    ("Am I still living in Madrid?", "home"),
    ("What sort of mobile do I use now?", "phone"),
    ("Am I supposed to go easy on anything in my food?", "diet"),
    ("What class do I go to these days?", "hobby"),
    ("Do I still paint?", "hobby"),
    ("How many grandchildren have I got?", "grandchildren"),
)
"""Questions about changed facts: (text, chain); the chain's last step answers."""
