"""Ingrid: a ferry captain in Bergen who retires to a museum job, finds a partner, gives up
fish, leaves her choir and stops dyeing her hair (October 2023 to October 2024).

One person of the memory-hygiene data set (assembled and checked in hygiene_data.py);
written for this project (MIT), fictional. ``SAID`` rows are (key, ISO date said,
MemoryType value, importance, text) in the order said.
"""

from __future__ import annotations

USER = "ingrid"

SAID: tuple[tuple[str, str, str, float, str], ...] = (
    (
        "job-1",
        "2023-10-07",
        "ProfileFact",
        0.7,
        "The user is a ferry captain on the coastal route between Bergen and Stavanger.",
    ),
    (
        "tromso",
        "2023-10-07",
        "ProfileFact",
        0.5,
        "The user was born in Tromsø and moved to Bergen when she was twenty.",
    ),
    (
        "floyen-a",
        "2023-10-08",
        "Routine",
        0.5,
        "The user hikes up Mount Fløyen every morning before breakfast.",
    ),
    (
        "fishcakes",
        "2023-10-12",
        "EpisodicEvent",
        0.1,
        "The user had fish cakes for dinner on 2023-10-12.",
    ),
    (
        "partner-1",
        "2023-10-14",
        "RelationshipFact",
        0.6,
        "The user has been single since her divorce and says she isn't looking.",
    ),
    (
        "sons",
        "2023-10-21",
        "RelationshipFact",
        0.7,
        "The user has two grown-up sons, Even and Magnus.",
    ),
    (
        "diet-1",
        "2023-10-25",
        "Preference",
        0.5,
        "The user eats fish almost every day, usually cod or mackerel.",
    ),
    ("sheets", "2023-10-28", "EpisodicEvent", 0.1, "The user changed the bedsheets on 2023-10-28."),
    (
        "choir-1",
        "2023-11-04",
        "Routine",
        0.5,
        "The user sings alto in a women's choir that rehearses on Monday evenings.",
    ),
    (
        "neighbour-cat",
        "2023-11-09",
        "EpisodicEvent",
        0.1,
        "The neighbour's cat sat on the user's doorstep for an hour on 2023-11-09.",
    ),
    (
        "hair-1",
        "2023-11-11",
        "ProfileFact",
        0.3,
        "The user dyes her hair copper red every six weeks.",
    ),
    (
        "knitting-a",
        "2023-11-18",
        "Preference",
        0.5,
        "The user knits Norwegian jumpers for the whole family.",
    ),
    ("magnus-a", "2023-11-25", "RelationshipFact", 0.6, "The user's son Magnus is a chef in Oslo."),
    (
        "shoelaces",
        "2023-12-01",
        "EpisodicEvent",
        0.1,
        "The user bought new shoelaces on 2023-12-01.",
    ),
    ("smalltalk-a", "2023-12-02", "ProfileFact", 0.4, "The user hates small talk."),
    (
        "even-father",
        "2023-12-16",
        "EpisodicEvent",
        0.7,
        "The user's son Even became a father in December 2023, which makes her a grandmother.",
    ),
    ("waffles", "2023-12-30", "Preference", 0.4, "The user loves brown cheese on waffles."),
    (
        "dark-months",
        "2024-01-13",
        "EmotionalState",
        0.6,
        "The user feels anxious and low during the dark winter months.",
    ),
    (
        "floyen-b",
        "2024-01-20",
        "Routine",
        0.5,
        "Every day starts with the climb up Fløyen for the user, rain or shine.",
    ),
    (
        "rain-a",
        "2024-01-27",
        "Preference",
        0.4,
        "The user likes Bergen's constant rain and finds it calming.",
    ),
    (
        "knee",
        "2024-02-03",
        "ProfileFact",
        0.5,
        "The user's left knee is bad after years on slippery decks.",
    ),
    (
        "health-boundary",
        "2024-02-10",
        "Boundary",
        0.9,
        "The user does not want to discuss the health scare she had in 2022.",
    ),
    (
        "radio-a",
        "2024-02-17",
        "Routine",
        0.4,
        "The user listens to the shipping forecast on the radio every evening.",
    ),
    (
        "ola-chef",
        "2024-02-24",
        "RelationshipFact",
        0.5,
        "The user's nephew Ola works as a chef in Trondheim.",
    ),
    (
        "diet-2",
        "2024-03-09",
        "Preference",
        0.7,
        "After bad cholesterol results the user has gone vegan, so no more fish for her.",
    ),
    (
        "magnus-b",
        "2024-03-16",
        "RelationshipFact",
        0.6,
        "Magnus, the user's younger son, cooks in a restaurant kitchen in Oslo.",
    ),
    (
        "brunost-bread",
        "2024-03-23",
        "Preference",
        0.4,
        "The user dislikes brown cheese on bread; to her it only belongs on waffles.",
    ),
    (
        "job-2",
        "2024-04-06",
        "ProfileFact",
        0.7,
        "The user retired from the ferries in April 2024 and now works part-time as a "
        "guide at the maritime museum.",
    ),
    (
        "shoulder",
        "2024-04-13",
        "ProfileFact",
        0.5,
        "The user's right shoulder has been stiff since she slipped on the ice in February 2024.",
    ),
    (
        "smalltalk-b",
        "2024-04-20",
        "ProfileFact",
        0.4,
        "Chit-chat about the weather drives the user mad; she'd rather talk about something real.",
    ),
    (
        "dyslexia",
        "2024-04-27",
        "ProfileFact",
        0.5,
        "The user is dyslexic and prefers voice messages to long texts.",
    ),
    (
        "choir-2",
        "2024-05-04",
        "Routine",
        0.5,
        "The user has left the choir after falling out with the new conductor.",
    ),
    (
        "knitting-b",
        "2024-05-11",
        "Preference",
        0.5,
        "The user's knitting is legendary; everyone in her family owns at least one of "
        "her sweaters.",
    ),
    (
        "tar",
        "2024-05-18",
        "Preference",
        0.4,
        "The user likes the smell of tar on old wooden boats.",
    ),
    (
        "partner-2",
        "2024-06-08",
        "RelationshipFact",
        0.7,
        "The user met a widower called Sverre on a hiking trip, and they are now a couple.",
    ),
    (
        "shetland-goal",
        "2024-06-15",
        "Goal",
        0.6,
        "The user wants to sail her own small boat to Shetland one summer.",
    ),
    (
        "rain-b",
        "2024-06-22",
        "Preference",
        0.4,
        "Rainy days relax the user; she says the drizzle is good for the soul.",
    ),
    ("diesel", "2024-06-29", "Preference", 0.4, "The user hates the smell of diesel."),
    (
        "sverre-daughters",
        "2024-07-13",
        "RelationshipFact",
        0.5,
        "The user's partner Sverre has two grown daughters in Stavanger.",
    ),
    (
        "hair-2",
        "2024-07-27",
        "ProfileFact",
        0.3,
        "The user has stopped colouring her hair and let it go fully grey, and she loves it.",
    ),
    (
        "floyen-c",
        "2024-08-10",
        "Routine",
        0.5,
        "User said she has walked up the mountain behind her house nearly every morning "
        "for ten years.",
    ),
    (
        "magnus-wedding",
        "2024-08-24",
        "EpisodicEvent",
        0.6,
        "The user's son Magnus got married in Trondheim in August 2024.",
    ),
    (
        "radio-b",
        "2024-09-07",
        "Routine",
        0.4,
        "Out of old habit the user still tunes in to the evening weather and sea report.",
    ),
    (
        "tall",
        "2024-09-21",
        "ProfileFact",
        0.3,
        "The user is 1.82 metres tall and often the tallest woman in the room.",
    ),
    (
        "sverre-hiking",
        "2024-10-05",
        "EpisodicEvent",
        0.5,
        "The user and Sverre hiked Trolltunga together in early October 2024.",
    ),
)

GROUPS: dict[str, tuple[str, ...]] = {
    "floyen": ("floyen-a", "floyen-b", "floyen-c"),
    "knitting": ("knitting-a", "knitting-b"),
    "small-talk": ("smalltalk-a", "smalltalk-b"),
    "magnus-chef": ("magnus-a", "magnus-b"),
    "rain": ("rain-a", "rain-b"),
    "shipping-forecast": ("radio-a", "radio-b"),
}
"""Paraphrase groups: one fact said again in other words."""

CHAINS: dict[str, tuple[str, ...]] = {
    "job": ("job-1", "job-2"),
    "partner": ("partner-1", "partner-2"),
    "diet": ("diet-1", "diet-2"),
    "choir": ("choir-1", "choir-2"),
    "hair": ("hair-1", "hair-2"),
}
"""Changed facts: the steps of each, oldest first."""

TRIVIAL: tuple[str, ...] = ("fishcakes", "sheets", "neighbour-cat", "shoelaces")
"""Stale, low-value memories: candidates for retirement."""

LOOK_ALIKES: tuple[tuple[str, str, str], ...] = (
    ("waffles", "brunost-bread", "opposite"),
    ("tar", "diesel", "opposite"),
    ("magnus-a", "ola-chef", "other entity"),
    ("knee", "shoulder", "other aspect"),
    ("magnus-a", "magnus-wedding", "other fact"),
    ("partner-2", "sverre-daughters", "other fact"),
)
"""Pairs that read alike but hold different facts: (key, key, why)."""

QUESTIONS: tuple[tuple[str, str], ...] = (
    ("What do I do for work now?", "job"),
    ("Am I still skippering the ferry?", "job"),
    ("Is there someone special in my life right now?", "partner"),
    ("Do I eat seafood nowadays?", "diet"),
    ("Am I still singing on Monday nights?", "choir"),
    ("What colour is my hair at the moment?", "hair"),
)
"""Questions about changed facts: (text, chain); the chain's last step answers."""
