"""Scene ``allotment-row`` of the observation data set (see observations.py): four neighbours
on a Bristol allotment site, noted over a growing year. Written for this project (MIT).

Shared words on purpose: three sisters, two cyclists, two jam makers, a dog, two daughters,
two people who cook for a living or for fun, and a Portugal trip against a Galway one.
"""

from __future__ import annotations

NAME = "allotment-row"
PEOPLE = ("Margaret", "Dev", "Colm", "Yusuf")
ASKED = "2024-02-03"

SESSIONS: tuple[tuple[str, tuple[tuple[str, str, str, float], ...]], ...] = (
    (
        "2023-03-04",
        (
            (
                "margaret_teacher",
                "ProfileFact",
                (
                    "Margaret said she taught chemistry at a Bristol comprehensive for thirty "
                    "years before she retired."
                ),
                0.6,
            ),
            (
                "margaret_plot",
                "ProfileFact",
                (
                    "Margaret has worked plot 14 for over twenty years and is proudest of her "
                    "asparagus bed."
                ),
                0.5,
            ),
            (
                "dev_newplot",
                "EpisodicEvent",
                (
                    "Dev has just taken over the half plot next to Margaret's and admits he has "
                    "never grown anything."
                ),
                0.5,
            ),
            (
                "dev_job",
                "ProfileFact",
                (
                    "Dev works from home as a software tester for an insurance firm and logs off "
                    "at four most days."
                ),
                0.5,
            ),
            (
                "x_frost",
                "EpisodicEvent",
                "Margaret said the hard frost had split the water butt by the gate again.",
                0.3,
            ),
        ),
    ),
    (
        "2023-03-18",
        (
            (
                "colm_job",
                "ProfileFact",
                (
                    "Colm is a carpenter from Galway who fits kitchens for a living and builds "
                    "sheds on the side."
                ),
                0.6,
            ),
            (
                "yusuf_chef",
                "ProfileFact",
                (
                    "Yusuf was a head chef in Aleppo and now cooks at a Lebanese restaurant on "
                    "Stokes Croft."
                ),
                0.6,
            ),
            (
                "yusuf_family",
                "RelationshipFact",
                "Yusuf lives in Easton with his wife Rania and their two daughters.",
                0.5,
            ),
            (
                "dev_cycling",
                "Preference",
                (
                    "Dev cycles everywhere, has never owned a car and brings his tools down in a "
                    "bike trailer."
                ),
                0.5,
            ),
            (
                "x_biscuits",
                "EpisodicEvent",
                (
                    "Colm brought a flask of tea and a packet of custard creams for everyone on "
                    "the work day."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2023-04-01",
        (
            (
                "yusuf_ramadan",
                "EpisodicEvent",
                (
                    "Yusuf is fasting for Ramadan and comes to the plot at dawn before the day "
                    "gets long."
                ),
                0.4,
            ),
            (
                "margaret_sister",
                "RelationshipFact",
                (
                    "Margaret's sister Joan lives in Whitby and the two of them talk on the phone "
                    "every Sunday evening."
                ),
                0.5,
            ),
            (
                "dev_chillies",
                "Preference",
                (
                    "Dev is obsessed with chillies and has eleven varieties of seedlings crowding "
                    "his windowsills."
                ),
                0.5,
            ),
            (
                "colm_potatoes",
                "Preference",
                "Colm only grows potatoes and onions and says flowers are a waste of good soil.",
                0.5,
            ),
            (
                "x_peel",
                "EpisodicEvent",
                (
                    "Margaret and Colm disagreed about whether orange peel belongs in the compost "
                    "bins."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2023-04-22",
        (
            (
                "dev_slugs",
                "EpisodicEvent",
                (
                    "Slugs ate every one of Dev's lettuce seedlings in a single night and he "
                    "nearly gave up."
                ),
                0.4,
            ),
            (
                "colm_daughter",
                "RelationshipFact",
                "Colm's daughter Niamh is in her second year studying marine biology at Cardiff.",
                0.5,
            ),
            (
                "yusuf_eid",
                "EpisodicEvent",
                "Yusuf brought trays of maamoul to the allotment to celebrate Eid.",
                0.4,
            ),
            (
                "margaret_dog",
                "RelationshipFact",
                (
                    "Margaret's old spaniel Pudding spends all day asleep in her shed on a pile of"
                    " sacks."
                ),
                0.4,
            ),
            (
                "x_hail",
                "EpisodicEvent",
                "Dev spent the afternoon sheltering from a hailstorm in Colm's shed.",
                0.3,
            ),
            (
                "colm_x_rotavator",
                "EpisodicEvent",
                "Colm hired a rotavator and did three neighbours' plots while he had it.",
                0.3,
            ),
        ),
    ),
    (
        "2023-05-06",
        (
            (
                "margaret_knee",
                "EpisodicEvent",
                (
                    "Margaret is having her knee replaced next week and won't be able to dig for a"
                    " couple of months."
                ),
                0.6,
            ),
            (
                "colm_sober",
                "Boundary",
                (
                    "Colm stopped drinking four years ago and would rather not be invited to pub "
                    "nights."
                ),
                0.6,
            ),
            (
                "dev_partner",
                "RelationshipFact",
                (
                    "Dev's partner Sam is a midwife at Southmead and has no interest in gardening "
                    "whatsoever."
                ),
                0.5,
            ),
            (
                "yusuf_herbs",
                "Preference",
                (
                    "Yusuf grows flat-leaf parsley, mint and purslane for fattoush and says "
                    "supermarket mint tastes of nothing."
                ),
                0.5,
            ),
            (
                "x_bunting",
                "EpisodicEvent",
                (
                    "The allotment society hung bunting for the coronation weekend and Colm took "
                    "it all down on Monday."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2023-05-20",
        (
            (
                "margaret_knee_done",
                "EpisodicEvent",
                (
                    "Margaret is home after her knee operation, and Dev and Yusuf are watering her"
                    " plot in the meantime."
                ),
                0.5,
            ),
            (
                "colm_fiddle",
                "ProfileFact",
                (
                    "Colm plays fiddle at an Irish music session on Gloucester Road every "
                    "Thursday, sticking to lemonade."
                ),
                0.5,
            ),
            (
                "dev_sister",
                "RelationshipFact",
                (
                    "Dev's sister Anjali is a vet in Leicester and keeps sending him articles "
                    "about organic pest control."
                ),
                0.5,
            ),
            (
                "yusuf_english",
                "Goal",
                (
                    "Yusuf goes to an English conversation class at Easton library on Tuesday "
                    "mornings to polish his writing."
                ),
                0.4,
            ),
            (
                "x_pigeons",
                "EpisodicEvent",
                (
                    "Pigeons stripped Yusuf's young cabbages, so he put up netting made from an "
                    "old football goal."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2023-06-10",
        (
            (
                "yusuf_driving",
                "Goal",
                "Yusuf is taking driving lessons and hopes to pass his test before the winter.",
                0.5,
            ),
            (
                "margaret_grandson",
                "RelationshipFact",
                (
                    "Margaret's grandson Alfie is nine and comes on Saturdays to help pick "
                    "strawberries."
                ),
                0.5,
            ),
            (
                "colm_shed",
                "EpisodicEvent",
                (
                    "Colm built a new tool shed for the allotment society from reclaimed "
                    "scaffolding boards."
                ),
                0.5,
            ),
            (
                "dev_vegan",
                "Preference",
                (
                    "Dev has been vegan for two years and politely turned down Margaret's egg "
                    "sandwiches."
                ),
                0.5,
            ),
            (
                "x_heat",
                "EpisodicEvent",
                "It was the hottest day of the year so far and everyone gave up digging by noon.",
                0.3,
            ),
            (
                "yusuf_x_mint",
                "EpisodicEvent",
                "Yusuf's mint has escaped its pot and is spreading into the path.",
                0.3,
            ),
        ),
    ),
    (
        "2023-06-24",
        (
            (
                "dev_hotsauce_goal",
                "Goal",
                (
                    "Dev wants to bottle his own hot sauce and sell it at a market stall by the "
                    "end of the summer."
                ),
                0.5,
            ),
            (
                "colm_sister",
                "RelationshipFact",
                (
                    "Colm's older sister Orla runs a pub in Galway and is always asking him to "
                    "move home."
                ),
                0.5,
            ),
            (
                "margaret_crossword",
                "Preference",
                (
                    "Margaret does the cryptic crossword every morning and hates anyone telling "
                    "her the answers."
                ),
                0.4,
            ),
            (
                "yusuf_jam",
                "EpisodicEvent",
                (
                    "Yusuf made fig jam with cardamom and swapped a jar for some of Margaret's "
                    "rhubarb."
                ),
                0.4,
            ),
            (
                "x_hose",
                "EpisodicEvent",
                "Someone left the communal hose running overnight and Dev got the blame.",
                0.3,
            ),
        ),
    ),
    (
        "2023-07-08",
        (
            (
                "colm_galway",
                "EpisodicEvent",
                "Colm flew back to Galway last weekend for Orla's fiftieth birthday party.",
                0.5,
            ),
            (
                "yusuf_daughter",
                "RelationshipFact",
                (
                    "Yusuf's elder daughter Lina wants to be a doctor and starts her A levels in "
                    "September."
                ),
                0.5,
            ),
            (
                "margaret_hearing",
                "Boundary",
                (
                    "Margaret is a little deaf in her left ear and asks people to sit on her right"
                    " when they talk to her."
                ),
                0.5,
            ),
            (
                "x_blight",
                "EpisodicEvent",
                "Margaret's greenhouse tomatoes have blight and she had to pull half of them.",
                0.3,
            ),
            (
                "dev_x_puncture",
                "EpisodicEvent",
                "Dev's bike got a puncture on the way to the plot and he walked the last mile.",
                0.3,
            ),
            (
                "colm_x_rain",
                "EpisodicEvent",
                "Colm said it rained every single day he was in Ireland.",
                0.3,
            ),
        ),
    ),
    (
        "2023-07-29",
        (
            (
                "dev_edinburgh",
                "Goal",
                (
                    "Dev is off to the Edinburgh Fringe next month and has already booked tickets "
                    "for nine comedy shows."
                ),
                0.5,
            ),
            (
                "margaret_stick",
                "EpisodicEvent",
                (
                    "Margaret is back on her plot with a walking stick and says the new knee is "
                    "better than the old one."
                ),
                0.4,
            ),
            (
                "yusuf_restaurant",
                "Goal",
                (
                    "Yusuf dreams of opening a small restaurant of his own where Rania would make "
                    "the pastries."
                ),
                0.5,
            ),
            (
                "colm_x_gate",
                "EpisodicEvent",
                "Colm planed down the allotment gate so it finally closes without a kick.",
                0.3,
            ),
            (
                "dev_x_deckchair",
                "EpisodicEvent",
                "Sam came to the plot for once after a night shift and fell asleep in a deckchair.",
                0.3,
            ),
        ),
    ),
    (
        "2023-08-12",
        (
            (
                "colm_back",
                "EpisodicEvent",
                (
                    "Colm hurt his back lifting railway sleepers for a raised bed and has been "
                    "told to rest for three weeks."
                ),
                0.5,
            ),
            (
                "margaret_bees",
                "Goal",
                (
                    "Margaret wants to keep two beehives at the bottom of her plot next spring and"
                    " is reading up on it."
                ),
                0.5,
            ),
            (
                "yusuf_football",
                "Preference",
                "Yusuf supports Bristol City and takes both girls to every home game he can.",
                0.4,
            ),
            (
                "colm_bike",
                "Preference",
                (
                    "Colm cycles the railway path to Bath most Sunday mornings and says it is the "
                    "best ride around Bristol."
                ),
                0.4,
            ),
            (
                "x_courgettes",
                "EpisodicEvent",
                (
                    "Everyone has too many courgettes and Margaret left a box of them at the gate "
                    "with a sign."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2023-08-26",
        (
            (
                "dev_fringe_back",
                "EpisodicEvent",
                (
                    "Dev is back from Edinburgh and said the best show was a one-woman comedy "
                    "about beekeeping."
                ),
                0.4,
            ),
            (
                "dev_hotsauce_sold",
                "EpisodicEvent",
                (
                    "Dev sold his first forty bottles of hot sauce at the Harbourside market on "
                    "Sunday."
                ),
                0.5,
            ),
            (
                "yusuf_gcse",
                "EpisodicEvent",
                "Yusuf was beaming because Lina got top grades in her GCSE results this week.",
                0.5,
            ),
            (
                "x_wasp",
                "EpisodicEvent",
                "A wasp stung Margaret on the hand while she was picking plums.",
                0.3,
            ),
        ),
    ),
    (
        "2023-09-09",
        (
            (
                "yusuf_test_fail",
                "EpisodicEvent",
                (
                    "Yusuf failed his first driving test on a roundabout and was annoyed about it "
                    "all afternoon."
                ),
                0.4,
            ),
            (
                "margaret_cruise",
                "EpisodicEvent",
                (
                    "Margaret has booked a river cruise along the Douro in Portugal for the middle"
                    " of October."
                ),
                0.5,
            ),
            (
                "colm_greenhouse",
                "Goal",
                (
                    "Colm wants to build a greenhouse from old sash windows for the society's "
                    "community plot."
                ),
                0.5,
            ),
            (
                "dev_x_milk",
                "EpisodicEvent",
                (
                    "Dev handed round a very hot chilli and Colm had to drink a pint of milk "
                    "afterwards."
                ),
                0.3,
            ),
            (
                "margaret_x_festival",
                "EpisodicEvent",
                (
                    "Margaret said she went to the Edinburgh Festival every August as a student "
                    "and still misses it."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2023-09-23",
        (
            (
                "dev_proposed",
                "EpisodicEvent",
                "Dev proposed to Sam at the top of Glastonbury Tor last Sunday and Sam said yes.",
                0.6,
            ),
            (
                "colm_back_ok",
                "EpisodicEvent",
                "Colm's back is better and he is digging again, but only in short spells.",
                0.3,
            ),
            (
                "margaret_husband",
                "Boundary",
                (
                    "Margaret asked that nobody bring up her late husband Geoffrey's illness; she "
                    "prefers to remember him well."
                ),
                0.7,
            ),
            (
                "x_apples",
                "EpisodicEvent",
                "Yusuf pressed apples from the old tree by the gate into juice for everyone.",
                0.3,
            ),
        ),
    ),
    (
        "2023-10-07",
        (
            (
                "dev_oldjob",
                "Boundary",
                "Dev would rather not talk about his old job at a bank, which ended badly.",
                0.5,
            ),
            (
                "yusuf_passed",
                "EpisodicEvent",
                (
                    "Yusuf passed his driving test on the second attempt and took Rania for a "
                    "drive to the coast at Clevedon."
                ),
                0.5,
            ),
            (
                "colm_niamh_boat",
                "EpisodicEvent",
                (
                    "Colm's daughter Niamh is spending a month on a research boat counting "
                    "dolphins off Pembrokeshire."
                ),
                0.4,
            ),
            (
                "x_leaves",
                "EpisodicEvent",
                "Margaret raked the leaves from the path into a leaf-mould cage.",
                0.3,
            ),
            (
                "yusuf_x_oil",
                "EpisodicEvent",
                (
                    "Yusuf brought a bottle of olive oil his cousin sent from Turkey and shared it"
                    " round."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2023-10-28",
        (
            (
                "margaret_douro",
                "EpisodicEvent",
                (
                    "Margaret is back from her cruise and loved the port tasting in Pinhao, though"
                    " not the steep steps."
                ),
                0.5,
            ),
            (
                "dev_wedding_plan",
                "Goal",
                (
                    "Dev and Sam want a small wedding next summer and would love the reception to "
                    "be at the allotment."
                ),
                0.5,
            ),
            (
                "yusuf_x_pumpkin",
                "EpisodicEvent",
                "Yusuf carved a pumpkin with his daughters and roasted the seeds with sumac.",
                0.3,
            ),
            (
                "colm_x_fiddle",
                "EpisodicEvent",
                "Colm restrung his fiddle and played a reel in the shed to test it.",
                0.3,
            ),
        ),
    ),
    (
        "2023-11-11",
        (
            (
                "yusuf_citizen",
                "EpisodicEvent",
                (
                    "Yusuf became a British citizen this week at a ceremony at City Hall, with "
                    "Rania and the girls watching."
                ),
                0.6,
            ),
            (
                "colm_greenhouse_built",
                "EpisodicEvent",
                (
                    "Colm finished the greenhouse made of old sash windows and the society will "
                    "grow tomatoes in it."
                ),
                0.5,
            ),
            (
                "margaret_x_garlic",
                "EpisodicEvent",
                "Margaret's grandson helped her plant garlic cloves in very neat rows.",
                0.3,
            ),
            (
                "dev_x_garlic",
                "EpisodicEvent",
                "Dev planted garlic for the first time and labelled every row with lolly sticks.",
                0.3,
            ),
            (
                "x_poppies",
                "EpisodicEvent",
                (
                    "Margaret laid a wreath of poppies for the allotment society at the "
                    "Remembrance service."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2023-11-25",
        (
            (
                "dev_anjali_visit",
                "EpisodicEvent",
                (
                    "Dev's sister came down from Leicester and spent Saturday helping him clear "
                    "the plot."
                ),
                0.4,
            ),
            (
                "margaret_joan_fall",
                "EpisodicEvent",
                (
                    "Margaret's sister Joan had a fall at home, so Margaret is taking the train "
                    "north to stay with her."
                ),
                0.5,
            ),
            (
                "colm_spoons",
                "EpisodicEvent",
                (
                    "Colm is carving wooden spoons from the fallen cherry tree to sell at the "
                    "Christmas fair."
                ),
                0.4,
            ),
            (
                "x_bonfire",
                "EpisodicEvent",
                (
                    "The society had a bonfire of old bean poles and Yusuf grilled flatbreads on "
                    "the embers."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2023-12-09",
        (
            (
                "margaret_fair",
                "EpisodicEvent",
                (
                    "Margaret ran the cake stall at the allotment Christmas fair and sold out of "
                    "mince pies."
                ),
                0.4,
            ),
            (
                "colm_xmas",
                "EpisodicEvent",
                "Colm is going to Galway for Christmas and Niamh is coming with him.",
                0.5,
            ),
            (
                "yusuf_catering",
                "EpisodicEvent",
                (
                    "Yusuf catered the allotment Christmas party with mezze and people are still "
                    "talking about his muhammara."
                ),
                0.5,
            ),
            (
                "dev_x_cold",
                "EpisodicEvent",
                "Dev came to the fair with a heavy cold and went home early.",
                0.3,
            ),
            (
                "margaret_joan_back",
                "EpisodicEvent",
                (
                    "Margaret is home from Whitby; Joan is walking again but needs a carer twice a"
                    " day."
                ),
                0.4,
            ),
        ),
    ),
    (
        "2023-12-23",
        (
            (
                "margaret_x_carols",
                "EpisodicEvent",
                (
                    "Margaret sang carols with the church group by the allotment gates and Pudding"
                    " howled along."
                ),
                0.3,
            ),
            (
                "yusuf_x_busy",
                "EpisodicEvent",
                (
                    "Yusuf's restaurant is fully booked every night before Christmas and he is "
                    "sleeping five hours a night."
                ),
                0.3,
            ),
            (
                "dev_x_nutroast",
                "EpisodicEvent",
                (
                    "Dev and Sam are hosting both families for Christmas dinner and Dev is making "
                    "a nut roast."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-01-06",
        (
            (
                "margaret_marmalade",
                "Preference",
                (
                    "Margaret makes Seville orange marmalade every January and gives a jar to "
                    "everyone on the allotment."
                ),
                0.4,
            ),
            (
                "dev_wedding_date",
                "EpisodicEvent",
                (
                    "Dev and Sam have fixed their wedding for 13 July and booked the community "
                    "hall by the allotments."
                ),
                0.5,
            ),
            (
                "yusuf_unit",
                "EpisodicEvent",
                (
                    "Yusuf has found an empty cafe unit on St Marks Road and is talking to the "
                    "landlord about a lease."
                ),
                0.5,
            ),
            (
                "x_storm",
                "EpisodicEvent",
                "Storm Henk knocked the water tank over and Colm fixed it with a ratchet strap.",
                0.3,
            ),
            (
                "colm_x_newyear",
                "EpisodicEvent",
                (
                    "Colm spent New Year's Eve in Galway playing tunes in Orla's pub until two in "
                    "the morning."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-01-20",
        (
            (
                "margaret_bees_order",
                "EpisodicEvent",
                (
                    "Margaret has ordered her first colony of bees for April and Colm is building "
                    "the hive stands."
                ),
                0.5,
            ),
            (
                "colm_apprentice",
                "RelationshipFact",
                (
                    "Colm has taken on an apprentice, a lad called Kieran, in his kitchen-fitting "
                    "business."
                ),
                0.4,
            ),
            (
                "yusuf_x_snow",
                "EpisodicEvent",
                (
                    "Yusuf came to the plot in the snow just to check the broad beans under their "
                    "fleece."
                ),
                0.3,
            ),
            (
                "dev_x_catalogue",
                "EpisodicEvent",
                (
                    "Dev spent an evening with seed catalogues and ordered far too many chilli "
                    "varieties."
                ),
                0.3,
            ),
        ),
    ),
)

ASKS: tuple[tuple[str, str, str], ...] = (
    # single
    ("What subject did Margaret teach?", "margaret_teacher", "single"),
    ("What does Dev do for work?", "dev_job", "single"),
    ("What does Colm grow on his plot?", "colm_potatoes", "single"),
    ("What is Margaret's dog called?", "margaret_dog", "single"),
    ("What is Dev's partner's job?", "dev_partner", "single"),
    ("What is Niamh's degree in?", "colm_daughter", "single"),
    ("Where does Margaret's sister live?", "margaret_sister margaret_joan_back", "single"),
    ("Where did Yusuf work before he came to Bristol?", "yusuf_chef", "single"),
    ("Which football team does Yusuf follow?", "yusuf_football", "single"),
    ("What instrument does Colm play?", "colm_fiddle colm_x_fiddle", "single"),
    ("What does Dev grow on his windowsills?", "dev_chillies", "single"),
    ("What does Dev's sister do?", "dev_sister", "single"),
    # multi
    (
        "Where is the pub run by the sister of the man who quit drinking?",
        "colm_sober colm_sister",
        "multi",
    ),
    (
        "Where will the couple who got engaged on Glastonbury Tor hold their wedding?",
        "dev_proposed dev_wedding_date",
        "multi",
    ),
    (
        "What is the name of the retired chemistry teacher's grandson?",
        "margaret_teacher margaret_grandson",
        "multi",
    ),
    (
        "What did the former head chef from Aleppo cook for the Christmas party?",
        "yusuf_chef yusuf_catering",
        "multi",
    ),
    (
        "What does the sister of the man selling hot sauce at the Harbourside do for a living?",
        "dev_hotsauce_sold dev_sister",
        "multi",
    ),
    (
        "What is the daughter of the Irish kitchen fitter doing on a boat?",
        "colm_job colm_niamh_boat",
        "multi",
    ),
    (
        "What did the woman with the asparagus bed enjoy most on her holiday in Portugal?",
        "margaret_plot margaret_douro",
        "multi",
    ),
    (
        "Where did the Bristol City fan drive his wife after he passed his driving test?",
        "yusuf_football yusuf_passed",
        "multi",
    ),
    (
        "How old is the grandson of the woman who is deaf in one ear?",
        "margaret_hearing margaret_grandson",
        "multi",
    ),
    (
        "What grades did the daughter of the man who became a citizen in November get?",
        "yusuf_citizen yusuf_gcse",
        "multi",
    ),
    (
        "What will the retired chemistry teacher keep at the bottom of her plot this spring?",
        "margaret_teacher margaret_bees_order",
        "multi",
    ),
    (
        "What does the partner of the allotment's chilli fanatic do for work?",
        "dev_chillies dev_partner",
        "multi",
    ),
    # temporal
    ("When was Margaret's joint replacement?", "margaret_knee margaret_knee_done", "temporal"),
    ("When did Dev propose to Sam?", "dev_proposed", "temporal"),
    ("When did Yusuf finally get his licence?", "yusuf_passed", "temporal"),
    ("What date is Dev's wedding?", "dev_wedding_date", "temporal"),
    ("When did Yusuf officially become British?", "yusuf_citizen", "temporal"),
    ("When did Colm go back to Ireland for his sister's birthday?", "colm_galway", "temporal"),
    ("When was Margaret's trip to Portugal?", "margaret_cruise margaret_douro", "temporal"),
    ("When did Dev's chilli sauce first go on sale?", "dev_hotsauce_sold", "temporal"),
    ("When did Colm injure himself moving heavy timber?", "colm_back", "temporal"),
    ("When did Dev start his allotment?", "dev_newplot", "temporal"),
    ("What happened to Margaret's sister in November?", "margaret_joan_fall", "temporal"),
    ("When are Margaret's bees arriving?", "margaret_bees_order", "temporal"),
    # open
    ("Would Colm enjoy a night out at a wine bar?", "colm_sober", "open"),
    ("Is a cheese and ham quiche a good thing to bring Dev?", "dev_vegan", "open"),
    ("Would Dev want a lift in my car to the garden centre?", "dev_cycling", "open"),
    ("How would Margaret feel if I filled in her crossword for her?", "margaret_crossword", "open"),
    ("Where should I sit when I chat to Margaret?", "margaret_hearing", "open"),
    ("Would Colm like a packet of wildflower seeds for his plot?", "colm_potatoes", "open"),
    ("Is it fine to ask Dev about his career in banking?", "dev_oldjob", "open"),
    (
        "Would Yusuf be good to ask for help cooking for a big party?",
        "yusuf_chef yusuf_catering",
        "open",
    ),
    ("Should I talk to Margaret about how Geoffrey died?", "margaret_husband", "open"),
    ("Would Dev enjoy a weekend at a comedy festival?", "dev_edinburgh dev_fringe_back", "open"),
    (
        "Would Yusuf like an article about starting a food business?",
        "yusuf_restaurant yusuf_unit",
        "open",
    ),
    ("Could Colm help me build some shelves?", "colm_job colm_shed", "open"),
)
