"""The hand-written part of the retrieval-quality data set: six people, the facts a companion
would have kept from long conversations with each, and questions whose answers are known facts.

Written for this project (MIT, like the rest of it); nothing is fetched. Questions come in five
kinds: ``direct`` (shares words with the answer), ``paraphrase`` (never said in those words),
``temporal`` (when something happened, or what happened when), ``follow_up`` (a short message
that needs the one before it) and ``name`` (a rare name or word the answer holds). Each fact
carries the date it was said.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fact:
    key: str
    type: str
    text: str
    said: str
    """ISO date the user said it."""
    importance: float = 0.5


@dataclass(frozen=True)
class Question:
    text: str
    answers: tuple[str, ...]
    kind: str
    previous: str | None = None


@dataclass(frozen=True)
class Persona:
    user: str
    facts: tuple[Fact, ...]
    questions: tuple[Question, ...]
    world: dict[str, tuple[str, ...]]
    """Words the generated background facts of this person draw on (names, places, dishes)."""


def _f(key: str, type_: str, text: str, said: str, importance: float = 0.5) -> Fact:
    return Fact(key, type_, text, said, importance)


def _q(text: str, answers: str, kind: str, previous: str | None = None) -> Question:
    return Question(text, tuple(answers.split()), kind, previous)


MAYA = Persona(
    "maya",
    (
        _f(
            "sister",
            "RelationshipFact",
            "The user's sister Lena loves pottery and throws bowls every weekend.",
            "2024-02-11",
            0.7,
        ),
        _f(
            "wedding",
            "EpisodicEvent",
            "The user's sister Lena is getting married in June in Porto.",
            "2024-03-02",
            0.7,
        ),
        _f(
            "allergy",
            "ProfileFact",
            "The user is allergic to peanuts and carries an EpiPen.",
            "2023-11-20",
            0.7,
        ),
        _f(
            "job",
            "ProfileFact",
            "The user works as a nurse on night shifts at St. Mary's hospital.",
            "2023-11-21",
            0.6,
        ),
        _f(
            "moved",
            "EpisodicEvent",
            "The user moved from Manchester to Lisbon in March 2023.",
            "2023-11-22",
        ),
        _f(
            "cat",
            "RelationshipFact",
            "The user has a grey cat named Biscuit who hates the vacuum cleaner.",
            "2023-12-01",
        ),
        _f(
            "marathon",
            "Goal",
            "The user wants to run the Lisbon half marathon next October.",
            "2024-01-15",
        ),
        _f(
            "knee",
            "EpisodicEvent",
            "The user twisted her knee while running in the rain in February.",
            "2024-02-20",
        ),
        _f(
            "dad",
            "EpisodicEvent",
            "The user's father passed away in August 2022 after a long illness.",
            "2023-12-12",
            0.8,
        ),
        _f(
            "grief",
            "EmotionalState",
            "The user still finds the anniversary of her dad's death very hard.",
            "2024-08-10",
            0.7,
        ),
        _f(
            "portuguese",
            "Goal",
            "The user is taking Portuguese lessons twice a week to feel more at home.",
            "2024-01-05",
        ),
        _f(
            "coffee",
            "Preference",
            "The user drinks her coffee black and can't stand oat milk.",
            "2023-12-03",
        ),
        _f(
            "sleep",
            "Routine",
            "After night shifts the user sleeps from 9am to 4pm with blackout curtains.",
            "2024-01-10",
        ),
        _f(
            "vegetarian",
            "Preference",
            "The user has been vegetarian since she was sixteen.",
            "2023-11-25",
        ),
        _f(
            "book",
            "Preference",
            "The user's favourite novel is 'The Remains of the Day'.",
            "2024-04-02",
        ),
        _f(
            "friend",
            "RelationshipFact",
            "The user's best friend Tomás teaches surfing in Ericeira.",
            "2024-04-18",
        ),
        _f(
            "anxiety",
            "EmotionalState",
            "The user gets anxious before her yearly performance review.",
            "2024-05-06",
        ),
        _f(
            "review",
            "EpisodicEvent",
            "The user's performance review went well and she got a raise in May 2024.",
            "2024-05-20",
        ),
        _f(
            "balcony",
            "Routine",
            "The user grows tomatoes and basil on her balcony every summer.",
            "2024-06-01",
        ),
        _f(
            "boundary",
            "Boundary",
            "The user does not want to talk about her ex-husband.",
            "2023-11-20",
            0.7,
        ),
        _f(
            "mother",
            "RelationshipFact",
            "The user calls her mother in Manchester every Sunday evening.",
            "2024-01-28",
        ),
        _f(
            "car",
            "EpisodicEvent",
            "The user sold her car in April 2024 and now cycles to the hospital.",
            "2024-04-25",
        ),
        _f(
            "trip",
            "EpisodicEvent",
            "The user spent a week hiking in the Azores in September 2024.",
            "2024-09-20",
        ),
        _f(
            "piano",
            "Goal",
            "The user would like to start playing the piano again, which she stopped at twelve.",
            "2024-07-07",
        ),
    ),
    (
        _q("What should I get my sister as a wedding present?", "sister wedding", "paraphrase"),
        _q(
            "I need to find a gift for her",
            "sister wedding",
            "follow_up",
            "My sister is getting married soon",
        ),
        _q("Can you suggest a snack for the road trip?", "allergy vegetarian", "paraphrase"),
        _q("Where do I work?", "job", "direct"),
        _q("When did I move to Lisbon?", "moved", "temporal"),
        _q("How is Biscuit doing lately?", "cat", "name"),
        _q("Which race am I training for?", "marathon knee", "paraphrase"),
        _q("It's almost the anniversary again and I'm dreading it", "grief dad", "paraphrase"),
        _q("How am I getting on with learning the local language?", "portuguese", "paraphrase"),
        _q("What happened at my appraisal at work?", "review anxiety", "paraphrase"),
        _q("What did I do in September 2024?", "trip", "temporal"),
        _q("Could Tomás teach me something this summer?", "friend", "name"),
        _q("How do I get to the hospital now?", "car job", "direct"),
        _q("I was thinking of picking up an instrument again", "piano", "paraphrase"),
    ),
    {
        "names": ("Rita", "Joana", "Paul", "Inês", "Carlos", "Sofia", "Bruno", "Ana"),
        "places": ("Alfama", "Belém", "Sintra", "Cascais", "the market", "the beach", "Baixa"),
        "dishes": (
            "grilled sardines",
            "a vegetable curry",
            "pastéis de nata",
            "caldo verde",
            "a lentil soup",
        ),
        "things": ("a bike lamp", "running shoes", "a rice cooker", "a yoga mat", "a desk plant"),
        "topics": (
            "hospital staffing",
            "rent prices",
            "tram routes",
            "ocean pollution",
            "night-shift health",
        ),
    },
)

SAM = Persona(
    "sam",
    (
        _f(
            "kids",
            "RelationshipFact",
            "The user has two kids, Noah who is seven and Ella who is four.",
            "2023-09-02",
            0.7,
        ),
        _f(
            "ella_school",
            "EpisodicEvent",
            "The user's daughter Ella started kindergarten in September 2024.",
            "2024-09-05",
        ),
        _f(
            "divorce",
            "EpisodicEvent",
            "The user went through a divorce in 2022 and shares custody every other week.",
            "2023-09-10",
            0.8,
        ),
        _f(
            "job",
            "ProfileFact",
            "The user is a software engineer at a logistics startup called Freightly.",
            "2023-09-03",
            0.6,
        ),
        _f(
            "layoff",
            "EpisodicEvent",
            "The user's team was cut in half during layoffs in January 2024.",
            "2024-01-22",
            0.7,
        ),
        _f(
            "stress",
            "EmotionalState",
            "The user feels burnt out and has trouble switching off in the evenings.",
            "2024-02-02",
            0.6,
        ),
        _f(
            "climbing",
            "Preference",
            "The user goes bouldering at a climbing gym on Tuesday nights.",
            "2023-10-01",
        ),
        _f("lactose", "ProfileFact", "The user is lactose intolerant.", "2023-09-15", 0.7),
        _f(
            "dog",
            "RelationshipFact",
            "The user adopted a rescue greyhound called Pepper in July 2024.",
            "2024-07-14",
        ),
        _f(
            "garden",
            "Goal",
            "The user wants to build a vegetable patch with the kids in the backyard.",
            "2024-03-10",
        ),
        _f(
            "brother",
            "RelationshipFact",
            "The user's brother Luke lives in Denver and they rarely talk.",
            "2023-11-11",
        ),
        _f(
            "reconcile",
            "Goal",
            "The user hopes to reconnect with his brother Luke this year.",
            "2024-01-02",
        ),
        _f(
            "car",
            "EpisodicEvent",
            "The user's car broke down on the highway in March 2024 and needed a new transmission.",
            "2024-03-19",
        ),
        _f(
            "guitar",
            "Routine",
            "The user plays guitar for half an hour after the kids are asleep.",
            "2023-12-05",
        ),
        _f("band", "Preference", "The user's favourite band is Radiohead.", "2023-12-06"),
        _f(
            "concert",
            "EpisodicEvent",
            "The user saw Thom Yorke play live in Chicago in October 2023.",
            "2023-10-30",
        ),
        _f(
            "therapy",
            "Routine",
            "The user sees a therapist every second Thursday.",
            "2024-02-15",
            0.6,
        ),
        _f(
            "noah_football",
            "EpisodicEvent",
            "The user's son Noah scored his first goal in a football match in May 2024.",
            "2024-05-12",
        ),
        _f(
            "boundary",
            "Boundary",
            "The user does not want advice about his ex-wife.",
            "2023-09-10",
            0.7,
        ),
        _f(
            "morning",
            "Routine",
            "The user runs 5k before work on Mondays, Wednesdays and Fridays.",
            "2023-10-15",
        ),
        _f(
            "promotion",
            "EpisodicEvent",
            "The user was promoted to tech lead in August 2024.",
            "2024-08-20",
        ),
        _f(
            "cooking",
            "Goal",
            "The user is trying to cook more meals from scratch instead of ordering takeaway.",
            "2024-04-04",
        ),
        _f(
            "mom_health",
            "EpisodicEvent",
            "The user's mother had hip surgery in November 2024.",
            "2024-11-18",
            0.7,
        ),
        _f(
            "lake",
            "EpisodicEvent",
            "The user took the kids camping at Lake Michigan in August 2023.",
            "2023-08-30",
        ),
    ),
    (
        _q("How old are my children?", "kids", "direct"),
        _q("What's a good cheese for a fondue night?", "lactose", "paraphrase"),
        _q("I can't stop thinking about work when I get home", "stress layoff", "paraphrase"),
        _q("When did Ella start school?", "ella_school", "temporal"),
        _q("How is Pepper settling in?", "dog", "name"),
        _q("Should I call Luke?", "brother reconcile", "name"),
        _q("What happened with my car?", "car", "direct"),
        _q("Which gigs have I been to?", "concert band", "paraphrase"),
        _q("What did Noah achieve this spring?", "noah_football", "temporal"),
        _q("Any weekend ideas with the little ones outdoors?", "garden lake kids", "paraphrase"),
        _q("How did things go at Freightly recently?", "promotion layoff job", "name"),
        _q("My mom is recovering, any tips?", "mom_health", "direct"),
        _q("What did we do last summer by the water?", "lake", "temporal"),
        _q(
            "what should I make for dinner?",
            "cooking lactose",
            "follow_up",
            "I keep ordering pizza every night",
        ),
    ),
    {
        "names": ("Mike", "Jenna", "Carlos", "Priya", "Dave", "Olivia", "Marcus", "Tina"),
        "places": (
            "the hardware store",
            "downtown",
            "the suburbs",
            "the office",
            "the school",
            "the mall",
        ),
        "dishes": ("tacos", "a stir fry", "burgers", "a chicken soup", "pad thai"),
        "things": ("a standing desk", "a drill", "a tent", "a smart speaker", "headphones"),
        "topics": (
            "Kubernetes",
            "school lunches",
            "interest rates",
            "electric cars",
            "remote work",
        ),
    },
)

AIKO = Persona(
    "aiko",
    (
        _f(
            "phd",
            "ProfileFact",
            "The user is doing a PhD in marine biology on coral bleaching.",
            "2023-04-02",
            0.7,
        ),
        _f(
            "defense",
            "Goal",
            "The user plans to defend her thesis in spring 2025.",
            "2024-06-01",
            0.6,
        ),
        _f(
            "supervisor",
            "RelationshipFact",
            "The user's supervisor, Dr. Okafor, is demanding but kind.",
            "2023-04-10",
        ),
        _f(
            "reef",
            "EpisodicEvent",
            "The user did a field trip to the Great Barrier Reef in November 2023.",
            "2023-12-02",
        ),
        _f(
            "seasick",
            "ProfileFact",
            "The user gets terribly seasick on small boats.",
            "2023-04-12",
            0.6,
        ),
        _f(
            "partner",
            "RelationshipFact",
            "The user's girlfriend Mei is a pastry chef.",
            "2023-05-01",
            0.7,
        ),
        _f(
            "anniversary",
            "EpisodicEvent",
            "The user and Mei celebrated their third anniversary in Kyoto in April 2024.",
            "2024-04-22",
        ),
        _f(
            "grandma",
            "RelationshipFact",
            "The user's grandmother in Osaka taught her to make miso soup.",
            "2023-06-03",
        ),
        _f(
            "grandma_ill",
            "EpisodicEvent",
            "The user's grandmother was hospitalised with pneumonia in January 2024.",
            "2024-01-18",
            0.8,
        ),
        _f(
            "worry",
            "EmotionalState",
            "The user worries she doesn't visit her family in Japan often enough.",
            "2024-01-20",
            0.6,
        ),
        _f("diving", "Preference", "The user loves night diving more than anything.", "2023-05-15"),
        _f(
            "paper",
            "EpisodicEvent",
            "The user's first paper was accepted by a journal in July 2024.",
            "2024-07-30",
        ),
        _f(
            "imposter",
            "EmotionalState",
            "The user often feels like an impostor among the other researchers.",
            "2023-09-09",
            0.6,
        ),
        _f(
            "vegan",
            "Preference",
            "The user eats mostly plant-based food but makes an exception for sushi.",
            "2023-05-20",
        ),
        _f(
            "bike",
            "Routine",
            "The user cycles along the harbour to the lab every morning.",
            "2023-08-08",
        ),
        _f("ukulele", "Preference", "The user plays the ukulele badly but happily.", "2023-10-14"),
        _f(
            "apartment",
            "EpisodicEvent",
            "The user and Mei moved into a flat near the harbour in February 2024.",
            "2024-02-25",
        ),
        _f(
            "visa",
            "EpisodicEvent",
            "The user's visa renewal was approved in October 2024.",
            "2024-10-15",
            0.6,
        ),
        _f(
            "running",
            "Goal",
            "The user wants to get fit enough to swim two kilometres without stopping.",
            "2024-08-01",
        ),
        _f(
            "boundary",
            "Boundary",
            "The user does not want to talk about her weight.",
            "2023-04-02",
            0.7,
        ),
        _f(
            "conference",
            "EpisodicEvent",
            "The user presented a poster at a conference in Lisbon in September 2024.",
            "2024-09-28",
        ),
        _f("tea", "Preference", "The user prefers genmaicha to coffee.", "2023-06-10"),
        _f(
            "brother",
            "RelationshipFact",
            "The user's younger brother Kenji is studying architecture in Tokyo.",
            "2023-07-07",
        ),
        _f(
            "sleep",
            "Routine",
            "The user writes her thesis between 6am and 9am when the house is quiet.",
            "2024-06-15",
        ),
    ),
    (
        _q("What is my research about?", "phd", "direct"),
        _q("Is a boat tour a good idea for my birthday?", "seasick", "paraphrase"),
        _q("What does Mei do for a living?", "partner", "name"),
        _q("When was my grandmother in hospital?", "grandma_ill", "temporal"),
        _q("I feel like everyone in the lab is smarter than me", "imposter", "paraphrase"),
        _q("When is my defense?", "defense", "temporal"),
        _q("What did we do for our anniversary?", "anniversary", "direct"),
        _q("Any ideas for dinner with my girlfriend tonight?", "vegan partner", "paraphrase"),
        _q("How's Kenji getting on?", "brother", "name"),
        _q("Where did I present my work this year?", "conference paper", "paraphrase"),
        _q("What happened with my paperwork to stay in the country?", "visa", "paraphrase"),
        _q("What's my favourite way to explore the ocean?", "diving", "paraphrase"),
        _q("what should I drink instead?", "tea", "follow_up", "I'm trying to cut down on coffee"),
        _q("When did we move in together?", "apartment", "temporal"),
    ),
    {
        "names": ("Hannah", "Raj", "Chloe", "Ben", "Yuki", "Tom", "Lucia", "Omar"),
        "places": ("the lab", "the aquarium", "the harbour", "the library", "the field station"),
        "dishes": ("ramen", "a tofu curry", "onigiri", "a salad bowl", "dumplings"),
        "things": (
            "a dive torch",
            "a new laptop",
            "a rain jacket",
            "a microscope slide box",
            "earplugs",
        ),
        "topics": (
            "ocean acidification",
            "grant deadlines",
            "plankton",
            "climate policy",
            "statistics",
        ),
    },
)

OMAR = Persona(
    "omar",
    (
        _f(
            "restaurant",
            "ProfileFact",
            "The user runs a small Lebanese restaurant called Cedar Table.",
            "2023-03-01",
            0.7,
        ),
        _f("opening", "EpisodicEvent", "The user opened Cedar Table in May 2021.", "2023-03-02"),
        _f(
            "chef",
            "RelationshipFact",
            "The user's head chef Fadi has been with him since the start.",
            "2023-03-05",
        ),
        _f(
            "review",
            "EpisodicEvent",
            "A newspaper gave Cedar Table a glowing review in June 2024.",
            "2024-06-09",
            0.6,
        ),
        _f(
            "back",
            "ProfileFact",
            "The user has chronic lower back pain from years of lifting crates.",
            "2023-03-10",
            0.7,
        ),
        _f(
            "wife",
            "RelationshipFact",
            "The user's wife Nour is an accountant who does the restaurant's books.",
            "2023-03-12",
            0.7,
        ),
        _f(
            "daughter",
            "EpisodicEvent",
            "The user's daughter Yasmin was born in December 2023.",
            "2024-01-05",
            0.8,
        ),
        _f(
            "tired",
            "EmotionalState",
            "The user is exhausted from juggling the restaurant and a newborn.",
            "2024-02-01",
            0.6,
        ),
        _f(
            "beirut",
            "RelationshipFact",
            "The user's parents still live in Beirut and he worries about them.",
            "2023-04-04",
            0.6,
        ),
        _f(
            "football",
            "Preference",
            "The user is a passionate supporter of Liverpool FC.",
            "2023-04-20",
        ),
        _f(
            "second",
            "Goal",
            "The user dreams of opening a second restaurant by the river.",
            "2024-03-15",
        ),
        _f(
            "loan",
            "EpisodicEvent",
            "The user's bank turned down his loan for a second restaurant in September 2024.",
            "2024-09-12",
            0.6,
        ),
        _f(
            "chess",
            "Routine",
            "The user plays online chess with his cousin every night after closing.",
            "2023-05-05",
        ),
        _f(
            "diabetes",
            "ProfileFact",
            "The user was diagnosed with type 2 diabetes in 2022.",
            "2023-05-10",
            0.8,
        ),
        _f("walk", "Goal", "The user's doctor wants him to walk 8,000 steps a day.", "2023-05-11"),
        _f(
            "recipe",
            "EpisodicEvent",
            "The user perfected his grandmother's kibbeh recipe in February 2024.",
            "2024-02-28",
        ),
        _f(
            "staff",
            "EpisodicEvent",
            "Two of the user's waiters quit on the same day in August 2024.",
            "2024-08-18",
        ),
        _f(
            "vacation",
            "Goal",
            "The user hasn't taken a holiday in three years and wants to go to Cyprus.",
            "2024-04-30",
        ),
        _f(
            "boundary", "Boundary", "The user does not want to discuss politics.", "2023-03-01", 0.7
        ),
        _f(
            "music",
            "Preference",
            "The user listens to Fairuz while prepping in the morning.",
            "2023-06-06",
        ),
        _f(
            "van", "EpisodicEvent", "The user bought a delivery van in November 2024.", "2024-11-02"
        ),
        _f(
            "brother",
            "RelationshipFact",
            "The user's brother Karim is a dentist in Montreal.",
            "2023-07-01",
        ),
        _f(
            "garden",
            "Routine",
            "The user grows his own mint and parsley behind the restaurant.",
            "2023-07-15",
        ),
        _f(
            "license",
            "EpisodicEvent",
            "The user got his liquor licence renewed in March 2024.",
            "2024-03-20",
        ),
    ),
    (
        _q("What's the name of my place?", "restaurant", "paraphrase"),
        _q("Who cooks in my kitchen?", "chef", "paraphrase"),
        _q("What should I avoid eating for dessert?", "diabetes", "paraphrase"),
        _q("When was Yasmin born?", "daughter", "temporal"),
        _q("I'm so tired I can barely think", "tired daughter", "paraphrase"),
        _q("Any news from my family back home?", "beirut", "paraphrase"),
        _q("How did the expansion plans go?", "loan second", "paraphrase"),
        _q("Who did I play chess with?", "chess", "direct"),
        _q("What happened with the staff this summer?", "staff", "temporal"),
        _q("Where would I like to go on holiday?", "vacation", "direct"),
        _q("How is Karim?", "brother", "name"),
        _q("my back is killing me again", "back", "paraphrase"),
        _q("any tips for tonight?", "tired", "follow_up", "Yasmin kept us up all night again"),
        _q("What did the newspaper say about us?", "review", "direct"),
    ),
    {
        "names": ("Rami", "Lina", "George", "Sara", "Elias", "Maya", "Jad", "Rana"),
        "places": ("the wholesale market", "the bank", "the river", "the kitchen", "the town hall"),
        "dishes": ("hummus", "fattoush", "a lamb stew", "falafel", "baklava"),
        "things": (
            "a new oven",
            "chairs for the terrace",
            "a coffee machine",
            "aprons",
            "a dishwasher",
        ),
        "topics": ("food prices", "parking rules", "tourism", "supplier delays", "energy bills"),
    },
)

GRETA = Persona(
    "greta",
    (
        _f(
            "retired",
            "ProfileFact",
            "The user is a retired primary school teacher who taught for 38 years.",
            "2023-01-05",
            0.6,
        ),
        _f(
            "husband",
            "EpisodicEvent",
            "The user's husband Hans died of a heart attack in October 2021.",
            "2023-01-06",
            0.8,
        ),
        _f(
            "lonely",
            "EmotionalState",
            "The user feels lonely in the evenings since Hans passed.",
            "2023-01-07",
            0.7,
        ),
        _f(
            "grandson",
            "RelationshipFact",
            "The user's grandson Felix is learning to play the violin.",
            "2023-02-10",
        ),
        _f(
            "recital",
            "EpisodicEvent",
            "Felix played his first violin recital in May 2024 and the user cried.",
            "2024-05-25",
            0.6,
        ),
        _f(
            "hearing",
            "ProfileFact",
            "The user is hard of hearing in her left ear.",
            "2023-01-10",
            0.7,
        ),
        _f(
            "choir",
            "Routine",
            "The user sings alto in the church choir on Wednesday evenings.",
            "2023-02-01",
        ),
        _f(
            "garden",
            "Preference",
            "The user's pride and joy are her roses, especially the yellow ones.",
            "2023-03-03",
        ),
        _f(
            "hip",
            "EpisodicEvent",
            "The user had a hip replacement in February 2024.",
            "2024-02-14",
            0.7,
        ),
        _f(
            "physio",
            "Routine",
            "The user does her physiotherapy exercises every morning after breakfast.",
            "2024-03-01",
        ),
        _f(
            "daughter",
            "RelationshipFact",
            "The user's daughter Anja lives in Hamburg and visits once a month.",
            "2023-01-15",
            0.6,
        ),
        _f(
            "tablet",
            "Goal",
            "The user wants to learn to video call her family on her new tablet.",
            "2023-12-27",
        ),
        _f(
            "video",
            "EpisodicEvent",
            "The user managed her first video call with Anja in January 2024.",
            "2024-01-12",
        ),
        _f(
            "cake",
            "Preference",
            "The user bakes a plum cake every Sunday in late summer.",
            "2023-08-20",
        ),
        _f(
            "crossword",
            "Routine",
            "The user does the newspaper crossword with her morning tea.",
            "2023-02-05",
        ),
        _f("cruise", "Goal", "The user dreams of a river cruise on the Danube.", "2024-06-10"),
        _f(
            "cruise_booked",
            "EpisodicEvent",
            "The user booked a Danube cruise for May 2025.",
            "2024-11-20",
            0.6,
        ),
        _f(
            "cat",
            "RelationshipFact",
            "The user's old tomcat Moritz sleeps on her feet every night.",
            "2023-04-04",
        ),
        _f(
            "neighbour",
            "RelationshipFact",
            "The user's neighbour Ilse drives her to the doctor.",
            "2023-05-05",
        ),
        _f(
            "boundary",
            "Boundary",
            "The user does not want to be told to move to a care home.",
            "2023-01-05",
            0.7,
        ),
        _f(
            "pills",
            "Routine",
            "The user takes her blood pressure tablets at 8 in the morning.",
            "2023-06-06",
            0.6,
        ),
        _f(
            "book_club",
            "Routine",
            "The user hosts a small book club on the first Friday of each month.",
            "2023-09-01",
        ),
        _f(
            "fall",
            "EpisodicEvent",
            "The user slipped on ice outside the bakery in December 2023 but was unhurt.",
            "2023-12-18",
        ),
        _f(
            "wedding", "EpisodicEvent", "The user and Hans married in 1969 in Lübeck.", "2023-01-08"
        ),
    ),
    (
        _q("What did I do for work?", "retired", "paraphrase"),
        _q("Evenings are so quiet in the house", "lonely husband", "paraphrase"),
        _q("How is Felix's music coming along?", "recital grandson", "name"),
        _q(
            "Why do I have trouble following conversations in restaurants?", "hearing", "paraphrase"
        ),
        _q("When did I have my operation?", "hip", "temporal"),
        _q("What flowers do I grow?", "garden", "direct"),
        _q("When does Anja come to see me?", "daughter", "name"),
        _q("Did I manage to talk to my family on the computer?", "video tablet", "paraphrase"),
        _q("What trip have I planned?", "cruise_booked cruise", "paraphrase"),
        _q("Where is Moritz?", "cat", "name"),
        _q("When did I fall last winter?", "fall", "temporal"),
        _q("When did I get married?", "wedding", "temporal"),
        _q(
            "what should I bake for it?",
            "cake book_club",
            "follow_up",
            "My book club is coming on Friday",
        ),
        _q("Who can take me to my appointment?", "neighbour", "paraphrase"),
    ),
    {
        "names": ("Gisela", "Peter", "Ute", "Klaus", "Monika", "Jürgen", "Heike", "Wolfgang"),
        "places": ("the bakery", "the pharmacy", "the church", "the park", "the market square"),
        "dishes": ("potato soup", "a herring salad", "apple strudel", "a roast", "dumplings"),
        "things": ("a reading lamp", "a warm scarf", "bird seed", "new glasses", "a radio"),
        "topics": (
            "pensions",
            "the weather",
            "the bus timetable",
            "gardening tips",
            "local history",
        ),
    },
)

LEO = Persona(
    "leo",
    (
        _f(
            "student",
            "ProfileFact",
            "The user is a second-year film student in Berlin.",
            "2023-10-01",
            0.6,
        ),
        _f(
            "short",
            "Goal",
            "The user is making a short film about his grandfather's bakery.",
            "2024-01-10",
        ),
        _f(
            "festival",
            "EpisodicEvent",
            "The user's short film was selected for a festival in Rotterdam in January 2025.",
            "2024-12-01",
            0.7,
        ),
        _f(
            "roommate",
            "RelationshipFact",
            "The user's roommate Jonas plays the drums at 2am.",
            "2023-10-05",
        ),
        _f(
            "sleep",
            "EmotionalState",
            "The user is sleep-deprived and irritable because of the noise at home.",
            "2023-10-20",
        ),
        _f(
            "adhd",
            "ProfileFact",
            "The user has ADHD and takes medication on weekdays.",
            "2023-10-02",
            0.7,
        ),
        _f(
            "barista",
            "ProfileFact",
            "The user works weekends as a barista in a café in Neukölln.",
            "2023-10-03",
        ),
        _f(
            "ex",
            "EpisodicEvent",
            "The user broke up with his boyfriend Max in March 2024.",
            "2024-03-18",
            0.7,
        ),
        _f(
            "heartbreak",
            "EmotionalState",
            "The user still checks Max's profile even though it hurts.",
            "2024-04-01",
            0.6,
        ),
        _f(
            "camera",
            "EpisodicEvent",
            "The user saved up and bought a used Blackmagic camera in February 2024.",
            "2024-02-14",
        ),
        _f(
            "grandpa",
            "RelationshipFact",
            "The user's grandfather Bruno ran a bakery in Naples for fifty years.",
            "2023-11-11",
            0.6,
        ),
        _f(
            "italian",
            "Goal",
            "The user is relearning Italian so he can interview his grandfather.",
            "2024-01-15",
        ),
        _f(
            "skate",
            "Preference",
            "The user skateboards at Tempelhof field when he needs to clear his head.",
            "2023-11-20",
        ),
        _f(
            "vegetarian",
            "Preference",
            "The user is vegetarian but eats fish when he visits Naples.",
            "2023-10-10",
        ),
        _f(
            "rent",
            "EpisodicEvent",
            "The user's rent went up by 120 euros in September 2024.",
            "2024-09-02",
            0.6,
        ),
        _f(
            "loan",
            "EmotionalState",
            "The user worries about money and his student loan.",
            "2024-09-05",
            0.6,
        ),
        _f("director", "Preference", "The user's favourite director is Agnès Varda.", "2023-12-12"),
        _f(
            "boundary",
            "Boundary",
            "The user does not want reminders to call his father.",
            "2023-10-01",
            0.7,
        ),
        _f(
            "naples_trip",
            "EpisodicEvent",
            "The user filmed in his grandfather's bakery in Naples in July 2024.",
            "2024-07-29",
        ),
        _f(
            "gym",
            "Goal",
            "The user wants to go climbing twice a week to build a routine.",
            "2024-05-05",
        ),
        _f(
            "sister",
            "RelationshipFact",
            "The user's sister Chiara is a lawyer in Milan and sends him care packages.",
            "2024-02-02",
        ),
        _f(
            "plant",
            "RelationshipFact",
            "The user has a monstera plant named Federico that he talks to.",
            "2024-06-06",
        ),
        _f(
            "editing",
            "Routine",
            "The user edits footage late at night with headphones on.",
            "2024-08-08",
        ),
        _f(
            "award",
            "EpisodicEvent",
            "The user's film won an audience award at a Berlin student festival in November 2024.",
            "2024-11-30",
            0.7,
        ),
    ),
    (
        _q("What am I studying?", "student", "paraphrase"),
        _q("Jonas kept me awake again", "roommate sleep", "name"),
        _q("Should I take my meds on Saturday?", "adhd", "paraphrase"),
        _q("Where do I work on weekends?", "barista", "direct"),
        _q("When did Max and I split up?", "ex", "temporal"),
        _q("I keep looking at his photos", "heartbreak ex", "follow_up", "I miss Max so much"),
        _q("What camera do I use?", "camera", "direct"),
        _q("Tell me about Nonno's shop", "grandpa", "paraphrase"),
        _q("What happened with my flat's costs?", "rent", "paraphrase"),
        _q("I'm broke again this month", "loan rent", "paraphrase"),
        _q("When did I shoot in Naples?", "naples_trip", "temporal"),
        _q("How is Federico?", "plant", "name"),
        _q("Did my film win anything?", "award festival", "paraphrase"),
        _q("Which filmmaker inspires me most?", "director", "paraphrase"),
    ),
    {
        "names": ("Lukas", "Amira", "Felix", "Sophie", "Emre", "Clara", "Niko", "Paula"),
        "places": ("the U-Bahn", "Kreuzberg", "the cinema", "the editing suite", "the Spree"),
        "dishes": ("a falafel wrap", "pasta", "a vegan burger", "currywurst", "a margherita"),
        "things": ("a tripod", "a microphone", "an SD card", "a jacket", "a second-hand lens"),
        "topics": (
            "film funding",
            "housing prices",
            "streaming services",
            "the BVG strike",
            "colour grading",
        ),
    },
)

PERSONAS = (MAYA, SAM, AIKO, OMAR, GRETA, LEO)
