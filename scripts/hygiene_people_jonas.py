"""Jonas: a history teacher in Gothenburg who becomes deputy head, stops cycling after a knee
operation, gives up alcohol and moves from a band to a choir (March 2023 to June 2024).

One person of the memory-hygiene data set (assembled and checked in hygiene_data.py);
written for this project (MIT), fictional. ``SAID`` rows are (key, ISO date said,
MemoryType value, importance, text) in the order said.
"""

from __future__ import annotations

USER = "jonas"

SAID: tuple[tuple[str, str, str, float, str], ...] = (
    (
        "job-1",
        "2023-03-04",
        "ProfileFact",
        0.7,
        "The user teaches history at a secondary school in Gothenburg.",
    ),
    (
        "kids",
        "2023-03-04",
        "RelationshipFact",
        0.8,
        "The user has two children, a son called Vilgot and a daughter called Saga.",
    ),
    (
        "commute-1",
        "2023-03-11",
        "Routine",
        0.5,
        "The user cycles to work every day, even in the middle of winter.",
    ),
    (
        "gothenburg",
        "2023-03-11",
        "ProfileFact",
        0.5,
        "The user was born in Gothenburg and has never lived anywhere else.",
    ),
    (
        "hotdog",
        "2023-03-18",
        "EpisodicEvent",
        0.1,
        "The user ate a hot dog at a petrol station on 2023-03-18.",
    ),
    ("elin-vet", "2023-03-25", "RelationshipFact", 0.7, "The user's wife Elin is a vet."),
    (
        "ice-a",
        "2023-04-01",
        "Routine",
        0.5,
        "The user goes winter swimming in the sea every Saturday morning.",
    ),
    (
        "hobby-1",
        "2023-04-08",
        "ProfileFact",
        0.5,
        "The user plays bass in a covers band that gigs in local pubs.",
    ),
    (
        "garage",
        "2023-04-15",
        "EpisodicEvent",
        0.1,
        "The user cleaned out the garage on 2023-04-15.",
    ),
    (
        "vilgot-1",
        "2023-04-22",
        "RelationshipFact",
        0.5,
        "The user's son Vilgot goes to the preschool round the corner.",
    ),
    (
        "alcohol-1",
        "2023-04-29",
        "Preference",
        0.4,
        "The user's favourite beer is a hazy IPA from a small brewery in Gothenburg.",
    ),
    (
        "politics-boundary",
        "2023-05-06",
        "Boundary",
        0.8,
        "The user does not want to discuss politics.",
    ),
    (
        "parcel",
        "2023-05-09",
        "EpisodicEvent",
        0.1,
        "The user's parcel arrived at the post office on 2023-05-09.",
    ),
    (
        "saga-horses-a",
        "2023-05-13",
        "RelationshipFact",
        0.6,
        "The user's daughter Saga is completely horse-mad.",
    ),
    (
        "fika-a",
        "2023-05-20",
        "Routine",
        0.4,
        "The user can't get through an afternoon without his fika.",
    ),
    (
        "umbrella",
        "2023-06-02",
        "EpisodicEvent",
        0.1,
        "The user left his umbrella in the staff room on 2023-06-02.",
    ),
    (
        "cabin",
        "2023-06-10",
        "ProfileFact",
        0.5,
        "The user's family has a summer cabin on the island of Orust.",
    ),
    ("herring", "2023-06-24", "Preference", 0.4, "The user loves pickled herring at Midsummer."),
    (
        "saga-arm",
        "2023-07-01",
        "EpisodicEvent",
        0.6,
        "The user's daughter Saga broke her arm falling off a pony in July 2023.",
    ),
    (
        "tinnitus-a",
        "2023-07-15",
        "ProfileFact",
        0.5,
        "The user has tinnitus in his left ear from years of loud gigs.",
    ),
    ("crime-a", "2023-07-29", "Preference", 0.4, "The user loves Nordic noir crime novels."),
    (
        "sauna-goal",
        "2023-08-05",
        "Goal",
        0.6,
        "The user wants to build a wood-fired sauna at the family's summer cabin.",
    ),
    (
        "job-2",
        "2023-08-19",
        "ProfileFact",
        0.7,
        "The user was made deputy head of his school in August 2023 and teaches far "
        "fewer lessons now.",
    ),
    (
        "vilgot-2",
        "2023-08-26",
        "RelationshipFact",
        0.5,
        "Vilgot has started first grade at primary school and loves his teacher.",
    ),
    (
        "saga-horses-b",
        "2023-09-09",
        "RelationshipFact",
        0.6,
        "Saga, the user's daughter, spends all her free time at the riding stables.",
    ),
    (
        "surstromming",
        "2023-09-16",
        "Preference",
        0.4,
        "The user can't stand surströmming and leaves the room when it is opened.",
    ),
    (
        "fika-b",
        "2023-09-30",
        "Routine",
        0.4,
        "A coffee and a cinnamon bun at three o'clock is non-negotiable for the user.",
    ),
    (
        "hobby-2",
        "2023-10-14",
        "ProfileFact",
        0.5,
        "The user's band has broken up after the drummer moved to Stockholm; he only "
        "plays bass at home now.",
    ),
    (
        "dad-pride-a",
        "2023-10-21",
        "RelationshipFact",
        0.5,
        "The user's father refuses to ask anyone for help.",
    ),
    (
        "ice-b",
        "2023-10-28",
        "Routine",
        0.5,
        "Cold-water dips on Saturday mornings are the user's favourite ritual.",
    ),
    (
        "dad-heart",
        "2023-11-11",
        "EpisodicEvent",
        0.8,
        "The user's father had a heart attack in November 2023 and is recovering at home.",
    ),
    (
        "guilt",
        "2023-11-25",
        "EmotionalState",
        0.6,
        "The user feels guilty that he doesn't visit his father more often.",
    ),
    (
        "anders-vet",
        "2023-12-02",
        "RelationshipFact",
        0.5,
        "The user's brother Anders works as a vet in Uppsala.",
    ),
    (
        "dark-winter",
        "2023-12-16",
        "Preference",
        0.4,
        "The user likes the long, dark Swedish winters.",
    ),
    (
        "knee",
        "2024-01-13",
        "EpisodicEvent",
        0.7,
        "The user had knee surgery in January 2024 after a skiing accident.",
    ),
    (
        "crime-b",
        "2024-01-20",
        "Preference",
        0.4,
        "Most of what the user reads is bleak Scandinavian detective fiction.",
    ),
    (
        "commute-2",
        "2024-02-03",
        "Routine",
        0.5,
        "Since the knee operation the user has given up the bike and takes the tram to school.",
    ),
    (
        "alcohol-2",
        "2024-02-17",
        "Preference",
        0.5,
        "The user has stopped drinking alcohol altogether; it's alcohol-free beer only "
        "for him now.",
    ),
    (
        "tinnitus-b",
        "2024-02-24",
        "ProfileFact",
        0.5,
        "The user hears a constant ringing in one ear, a souvenir from playing in bands.",
    ),
    (
        "dad-pride-b",
        "2024-03-02",
        "RelationshipFact",
        0.5,
        "The user says his dad is too proud to accept help, even after the heart attack.",
    ),
    (
        "hobby-3",
        "2024-03-16",
        "ProfileFact",
        0.5,
        "The user has joined the church choir in his neighbourhood and sings bass on "
        "Thursday nights.",
    ),
    (
        "birch",
        "2024-04-13",
        "ProfileFact",
        0.5,
        "The user is allergic to birch pollen every spring.",
    ),
    (
        "saga-violin",
        "2024-04-20",
        "RelationshipFact",
        0.5,
        "The user's daughter Saga plays the violin.",
    ),
    (
        "ebba-violin",
        "2024-04-27",
        "RelationshipFact",
        0.5,
        "The user's niece Ebba plays the violin in a youth orchestra.",
    ),
    (
        "horse-allergy",
        "2024-05-04",
        "ProfileFact",
        0.5,
        "The user is allergic to horses, which makes driving Saga to the stables awkward.",
    ),
    (
        "ice-c",
        "2024-05-18",
        "Routine",
        0.5,
        "User mentioned he never misses his weekend plunge into the freezing sea at Saltholmen.",
    ),
    (
        "light-summer",
        "2024-06-08",
        "Preference",
        0.4,
        "The user dislikes the light summer nights because he can't sleep.",
    ),
    (
        "colour-blind",
        "2024-06-15",
        "ProfileFact",
        0.4,
        "The user is colour-blind and can't tell red from green.",
    ),
)

GROUPS: dict[str, tuple[str, ...]] = {
    "sea-swimming": ("ice-a", "ice-b", "ice-c"),
    "saga-horses": ("saga-horses-a", "saga-horses-b"),
    "fika": ("fika-a", "fika-b"),
    "crime-novels": ("crime-a", "crime-b"),
    "dad-pride": ("dad-pride-a", "dad-pride-b"),
    "tinnitus": ("tinnitus-a", "tinnitus-b"),
}
"""Paraphrase groups: one fact said again in other words."""

CHAINS: dict[str, tuple[str, ...]] = {
    "job": ("job-1", "job-2"),
    "commute": ("commute-1", "commute-2"),
    "vilgot-school": ("vilgot-1", "vilgot-2"),
    "alcohol": ("alcohol-1", "alcohol-2"),
    "music": ("hobby-1", "hobby-2", "hobby-3"),
}
"""Changed facts: the steps of each, oldest first."""

TRIVIAL: tuple[str, ...] = ("hotdog", "garage", "parcel", "umbrella")
"""Stale, low-value memories: candidates for retirement."""

LOOK_ALIKES: tuple[tuple[str, str, str], ...] = (
    ("herring", "surstromming", "opposite"),
    ("dark-winter", "light-summer", "opposite"),
    ("elin-vet", "anders-vet", "other entity"),
    ("saga-violin", "ebba-violin", "other entity"),
    ("birch", "horse-allergy", "other aspect"),
    ("saga-horses-a", "saga-arm", "other fact"),
)
"""Pairs that read alike but hold different facts: (key, key, why)."""

QUESTIONS: tuple[tuple[str, str], ...] = (
    ("What's my position at the school now?", "job"),
    ("Am I still a regular classroom teacher?", "job"),
    ("How do I get to work these days?", "commute"),
    ("Is Vilgot in preschool or big school?", "vilgot-school"),
    ("Do I still have a pint now and then?", "alcohol"),
    ("Am I still in a band?", "music"),
    ("Where do I make music nowadays?", "music"),
)
"""Questions about changed facts: (text, chain); the chain's last step answers."""
