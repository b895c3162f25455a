"""Scene ``studio-seven`` of the observation data set (see observations.py): four colleagues at
a small games studio in Glasgow, noted over lunches for most of a year. Written for this
project (MIT).

Shared words on purpose: two runners, two cyclists, two brothers, three trips to Japan, two
musicians, two pets, and a game (Tidewater) that everyone talks about.
"""

from __future__ import annotations

NAME = "studio-seven"
PEOPLE = ("Hana", "Rafael", "Benedikt", "Chiara")
ASKED = "2025-04-11"

SESSIONS: tuple[tuple[str, tuple[tuple[str, str, str, float], ...]], ...] = (
    (
        "2024-05-03",
        (
            (
                "hana_role",
                "ProfileFact",
                (
                    "Hana is the lead programmer at the studio and wrote most of the engine for "
                    "their current game, Tidewater."
                ),
                0.6,
            ),
            (
                "rafael_role",
                "ProfileFact",
                (
                    "Rafael is a 3D artist from Recife who joined the studio last year and models "
                    "most of the characters."
                ),
                0.6,
            ),
            (
                "benedikt_role",
                "ProfileFact",
                (
                    "Benedikt produces the studio's games and keeps the schedule; he moved to "
                    "Glasgow from Munich in 2019."
                ),
                0.6,
            ),
            (
                "chiara_role",
                "ProfileFact",
                "Chiara does the sound design and music for the studio and grew up in Bologna.",
                0.6,
            ),
            (
                "x_rain",
                "EpisodicEvent",
                (
                    "Everyone agreed at lunch that it had rained for two weeks straight, and "
                    "Rafael said he had forgotten what the sun looks like."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-05-17",
        (
            (
                "hana_halfmarathon",
                "Goal",
                (
                    "Hana is training for the Great Scottish Run half marathon in October and runs"
                    " before work three days a week."
                ),
                0.5,
            ),
            (
                "rafael_parkrun",
                "Preference",
                (
                    "Rafael does the Saturday parkrun in Pollok Park and is chasing a time under "
                    "twenty-five minutes."
                ),
                0.4,
            ),
            (
                "benedikt_mila",
                "RelationshipFact",
                (
                    "Benedikt's daughter Mila turned two this month and has started saying words "
                    "in both German and English."
                ),
                0.5,
            ),
            (
                "chiara_bike",
                "Preference",
                "Chiara cycles to the studio along the canal every day, even in the rain.",
                0.4,
            ),
            (
                "x_pizza",
                "EpisodicEvent",
                (
                    "The team ordered pizza for a late night fixing a broken build and Benedikt "
                    "complained about the pineapple."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-05-31",
        (
            (
                "hana_grandma",
                "RelationshipFact",
                (
                    "Hana's grandmother lives alone in Kyoto and Hana phones her every Sunday, in "
                    "Japanese."
                ),
                0.5,
            ),
            (
                "chiara_brother",
                "RelationshipFact",
                (
                    "Chiara's brother Marco is a chef at an Italian restaurant in London and sends"
                    " her photos of his pasta."
                ),
                0.5,
            ),
            (
                "benedikt_brother",
                "RelationshipFact",
                "Benedikt's older brother Lukas runs a small craft brewery outside Munich.",
                0.5,
            ),
            (
                "rafael_cold",
                "Preference",
                "Rafael misses the heat of Recife and says a Glasgow summer is a Brazilian winter.",
                0.4,
            ),
            (
                "hana_edinburgh",
                "ProfileFact",
                "Hana grew up in Edinburgh; her mum is from Kyoto and her dad from Leith.",
                0.4,
            ),
            (
                "x_moka",
                "EpisodicEvent",
                "The studio coffee machine broke and Chiara brought in her moka pot for the week.",
                0.3,
            ),
        ),
    ),
    (
        "2024-06-14",
        (
            (
                "hana_rabbit",
                "RelationshipFact",
                (
                    "Hana has a lop-eared rabbit called Mochi who roams free in her flat and chews"
                    " through cables."
                ),
                0.4,
            ),
            (
                "rafael_gaelic",
                "Goal",
                (
                    "Rafael has started learning Scottish Gaelic on an app and practises phrases "
                    "on the office plants."
                ),
                0.4,
            ),
            (
                "benedikt_weekends",
                "Boundary",
                (
                    "Benedikt does not answer work messages at weekends; that time belongs to his "
                    "family."
                ),
                0.6,
            ),
            (
                "chiara_synths",
                "Preference",
                (
                    "Chiara collects old analogue synthesisers and her modular rig has taken over "
                    "the spare room."
                ),
                0.5,
            ),
            (
                "x_euros",
                "EpisodicEvent",
                (
                    "Benedikt and Chiara watched the opening Euros match, Germany against "
                    "Scotland, and only one of them enjoyed it."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-07-05",
        (
            (
                "chiara_freya",
                "RelationshipFact",
                (
                    "Chiara has been seeing a primary school teacher called Freya for about six "
                    "months."
                ),
                0.5,
            ),
            (
                "rafael_sister",
                "RelationshipFact",
                (
                    "Rafael's younger sister Bia is studying architecture in Sao Paulo and wants "
                    "to do a master's in Europe."
                ),
                0.5,
            ),
            (
                "hana_piano",
                "Preference",
                "Hana plays piano to unwind and is slowly learning Debussy's Clair de Lune.",
                0.4,
            ),
            (
                "benedikt_boardgames",
                "Preference",
                "Benedikt hosts a board game night at his flat on the first Friday of each month.",
                0.4,
            ),
            (
                "rafael_surf",
                "Preference",
                (
                    "Rafael grew up surfing in Recife and has been eyeing the cold-water waves at "
                    "Thurso."
                ),
                0.4,
            ),
            (
                "x_alarm",
                "EpisodicEvent",
                (
                    "The fire alarm went off in the middle of a playtest and everyone stood in the"
                    " car park for forty minutes."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-07-19",
        (
            (
                "benedikt_delay",
                "EpisodicEvent",
                (
                    "Benedikt told the team that Tidewater's release is moving from November to "
                    "February to fix performance problems."
                ),
                0.5,
            ),
            (
                "rafael_nuts",
                "ProfileFact",
                "Rafael is allergic to tree nuts and keeps an adrenaline pen in his backpack.",
                0.6,
            ),
            (
                "hana_euan",
                "RelationshipFact",
                (
                    "Hana's partner Euan is a paramedic on twelve-hour shifts, so they mostly see "
                    "each other on Sundays."
                ),
                0.5,
            ),
            (
                "chiara_x_headphones",
                "EpisodicEvent",
                (
                    "Chiara's studio headphones broke and she has taped them together until the "
                    "new pair arrives."
                ),
                0.3,
            ),
            (
                "benedikt_x_decaf",
                "EpisodicEvent",
                "Benedikt switched to decaf because Mila wakes him at five every morning anyway.",
                0.3,
            ),
        ),
    ),
    (
        "2024-08-09",
        (
            (
                "rafael_tokyo",
                "Goal",
                (
                    "Rafael is going to Tokyo Game Show in late September to show Tidewater on the"
                    " Scottish stand."
                ),
                0.5,
            ),
            (
                "benedikt_garda",
                "EpisodicEvent",
                "Benedikt leaves tomorrow for two weeks at Lake Garda with his wife Jana and Mila.",
                0.4,
            ),
            (
                "chiara_veg",
                "Preference",
                (
                    "Chiara has been vegetarian since her teens, except for her nonna's tortellini"
                    " at Christmas."
                ),
                0.5,
            ),
            (
                "hana_x_festival",
                "EpisodicEvent",
                (
                    "Hana spent the weekend at the Edinburgh Festival with Euan and saw a circus "
                    "show in a tent."
                ),
                0.3,
            ),
            (
                "rafael_x_feijoada",
                "EpisodicEvent",
                "Rafael cooked feijoada for the team lunch and there was none left by two o'clock.",
                0.3,
            ),
        ),
    ),
    (
        "2024-08-30",
        (
            (
                "benedikt_garda_back",
                "EpisodicEvent",
                (
                    "Benedikt is back from Italy and says Mila now refuses to go anywhere without "
                    "her inflatable flamingo."
                ),
                0.4,
            ),
            (
                "hana_flat",
                "EpisodicEvent",
                "Hana got the keys to her first flat this week, a tenement in Partick.",
                0.6,
            ),
            (
                "chiara_film_goal",
                "Goal",
                (
                    "Chiara's dream is to score a feature film, and she has been sending demos to "
                    "indie directors."
                ),
                0.5,
            ),
            (
                "rafael_x_boots",
                "EpisodicEvent",
                (
                    "Rafael bought proper waterproof boots after his trainers filled with water on"
                    " Byres Road."
                ),
                0.3,
            ),
            (
                "x_school",
                "EpisodicEvent",
                (
                    "A school group played Tidewater at the studio and the kids loved the otter "
                    "character Rafael modelled."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-09-13",
        (
            (
                "rafael_dog",
                "EpisodicEvent",
                "Rafael adopted a scruffy terrier cross from the Dogs Trust and named him Farofa.",
                0.5,
            ),
            (
                "chiara_calls",
                "Boundary",
                (
                    "Chiara asked people not to phone her after eight in the evening unless the "
                    "build is on fire; messages are fine."
                ),
                0.5,
            ),
            (
                "benedikt_bayern",
                "Preference",
                (
                    "Benedikt still follows Bayern Munich and watches their games at a German bar "
                    "in Finnieston."
                ),
                0.3,
            ),
            (
                "hana_x_wallpaper",
                "EpisodicEvent",
                "Hana spent the weekend stripping horrible wallpaper in her new hallway.",
                0.3,
            ),
        ),
    ),
    (
        "2024-10-04",
        (
            (
                "rafael_tgs_back",
                "EpisodicEvent",
                (
                    "Rafael is back from Japan, where a big Tokyo publisher played the Tidewater "
                    "demo and asked for a meeting."
                ),
                0.5,
            ),
            (
                "hana_kyoto_plan",
                "Goal",
                (
                    "Hana is flying out at the end of October to see her grandmother, who turns "
                    "ninety."
                ),
                0.5,
            ),
            (
                "benedikt_climb",
                "Preference",
                (
                    "Benedikt has taken up bouldering at a climbing centre on the south side with "
                    "a friend from the German school."
                ),
                0.4,
            ),
            (
                "chiara_x_cold",
                "EpisodicEvent",
                "Chiara has a streaming cold and did all her meetings with the camera off.",
                0.3,
            ),
            (
                "rafael_x_jetlag",
                "EpisodicEvent",
                "Rafael's jet lag was so bad that he fell asleep in the Monday stand-up.",
                0.3,
            ),
        ),
    ),
    (
        "2024-10-25",
        (
            (
                "hana_race",
                "EpisodicEvent",
                (
                    "Hana finished her half marathon in one hour fifty-eight and could barely walk"
                    " down the stairs the next day."
                ),
                0.5,
            ),
            (
                "chiara_japan_goal",
                "Goal",
                (
                    "Chiara and Freya are saving up for a trip to Japan next spring to see the "
                    "cherry blossom."
                ),
                0.5,
            ),
            (
                "rafael_visa",
                "EpisodicEvent",
                (
                    "Rafael's work visa renewal came through, so he can stay in the UK for another"
                    " three years."
                ),
                0.5,
            ),
            (
                "benedikt_x_pumpkin",
                "EpisodicEvent",
                "Benedikt dressed Mila as a pumpkin for the nursery Halloween party.",
                0.3,
            ),
            (
                "x_clocks",
                "EpisodicEvent",
                (
                    "Hana pointed out that the clocks go back on Sunday and nobody was happy about"
                    " the dark evenings."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-11-08",
        (
            (
                "hana_kyoto",
                "EpisodicEvent",
                (
                    "Hana is back from Kyoto, where her grandmother's birthday dinner had four "
                    "generations at one table."
                ),
                0.5,
            ),
            (
                "benedikt_jana",
                "RelationshipFact",
                (
                    "Benedikt's wife Jana is a translator who works from home in German, Czech and"
                    " English."
                ),
                0.5,
            ),
            (
                "rafael_politics",
                "Boundary",
                (
                    "Rafael would rather not discuss Brazilian politics at work; it gets him too "
                    "wound up."
                ),
                0.5,
            ),
            (
                "chiara_x_soldering",
                "EpisodicEvent",
                (
                    "Chiara bought a broken Roland synth on eBay and spent the weekend fixing it "
                    "with a soldering iron."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-11-22",
        (
            (
                "benedikt_publisher",
                "EpisodicEvent",
                (
                    "Benedikt signed a publishing deal for Tidewater with the Japanese company "
                    "Rafael met at the show."
                ),
                0.6,
            ),
            (
                "chiara_trattoria",
                "EpisodicEvent",
                "Chiara's brother Marco is opening his own trattoria in Peckham in the new year.",
                0.5,
            ),
            (
                "hana_children",
                "Boundary",
                "Hana does not like being asked when she and Euan are going to have children.",
                0.5,
            ),
            (
                "rafael_x_snow",
                "EpisodicEvent",
                (
                    "Rafael saw snow for the first time in his life this week and ran out of the "
                    "studio to touch it."
                ),
                0.3,
            ),
            (
                "chiara_x_radiator",
                "EpisodicEvent",
                (
                    "Chiara recorded the studio radiator clanking and turned it into a monster "
                    "growl for the game."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-12-06",
        (
            (
                "rafael_capoeira",
                "ProfileFact",
                (
                    "Rafael teaches a beginners' capoeira class in a church hall in Govanhill on "
                    "Wednesday evenings."
                ),
                0.4,
            ),
            (
                "benedikt_x_bock",
                "EpisodicEvent",
                (
                    "Lukas sent Benedikt a crate of his Christmas bock beer, which the team drank "
                    "at the party."
                ),
                0.3,
            ),
            (
                "chiara_bologna",
                "EpisodicEvent",
                (
                    "Chiara is going home to Bologna for Christmas and taking Freya to meet her "
                    "family for the first time."
                ),
                0.5,
            ),
            (
                "hana_x_bowling",
                "EpisodicEvent",
                (
                    "Hana organised the studio Christmas party at a bowling alley and came last in"
                    " every game."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-12-20",
        (
            (
                "hana_xmas",
                "EpisodicEvent",
                "Hana and Euan are spending Christmas in Inverness with Euan's parents.",
                0.4,
            ),
            (
                "benedikt_xmas",
                "EpisodicEvent",
                (
                    "Benedikt is driving to Munich for Christmas so Mila can see her grandparents "
                    "and some real snow."
                ),
                0.4,
            ),
            (
                "rafael_xmas",
                "EpisodicEvent",
                (
                    "Rafael is staying in Glasgow over Christmas and hosting a dinner for friends "
                    "who are far from home."
                ),
                0.4,
            ),
            (
                "x_santa",
                "EpisodicEvent",
                (
                    "The team swapped secret Santa gifts and Chiara got a mug shaped like a "
                    "cassette tape."
                ),
                0.3,
            ),
            (
                "chiara_x_early",
                "EpisodicEvent",
                (
                    "Chiara's flight to Italy is at six in the morning and she is already dreading"
                    " the alarm."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2025-01-10",
        (
            (
                "chiara_engaged",
                "EpisodicEvent",
                (
                    "Chiara and Freya got engaged at Hogmanay on Calton Hill in Edinburgh, with "
                    "fireworks going off behind them."
                ),
                0.6,
            ),
            (
                "rafael_bia_delft",
                "EpisodicEvent",
                (
                    "Rafael's sister Bia got a place on a master's course in Delft and will start "
                    "in September."
                ),
                0.4,
            ),
            (
                "benedikt_x_slack",
                "EpisodicEvent",
                (
                    "Benedikt's new year's resolution is to stop checking Slack on his phone after"
                    " dinner."
                ),
                0.3,
            ),
            (
                "hana_sprain",
                "EpisodicEvent",
                "Hana sprained her ankle on an icy pavement and can't run for at least six weeks.",
                0.5,
            ),
            (
                "chiara_x_ring",
                "EpisodicEvent",
                "Chiara showed everyone the ring, which belonged to Freya's grandmother.",
                0.3,
            ),
        ),
    ),
    (
        "2025-01-31",
        (
            (
                "benedikt_baby",
                "EpisodicEvent",
                "Benedikt and Jana are expecting a second baby in July, a little brother for Mila.",
                0.6,
            ),
            (
                "rafael_gaelic_class",
                "EpisodicEvent",
                (
                    "Rafael swapped the Gaelic app for an evening class and can now order a coffee"
                    " in Gaelic."
                ),
                0.4,
            ),
            (
                "chiara_x_cat",
                "EpisodicEvent",
                (
                    "A neighbour's cat keeps climbing in through Chiara's window and sleeping on "
                    "her synths."
                ),
                0.3,
            ),
            (
                "hana_x_crutches",
                "EpisodicEvent",
                (
                    "Hana came in on crutches and the team moved the desks so she didn't have to "
                    "climb the stairs."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2025-02-14",
        (
            (
                "hana_promotion",
                "EpisodicEvent",
                "Hana was made technical director this week and will hire two new programmers.",
                0.5,
            ),
            (
                "rafael_x_croissant",
                "EpisodicEvent",
                (
                    "Rafael brought Farofa to the studio and the dog stole a whole croissant from "
                    "Benedikt's desk."
                ),
                0.3,
            ),
            (
                "chiara_horror",
                "EpisodicEvent",
                (
                    "Chiara got her first film job: scoring a low-budget Scottish horror film that"
                    " shoots this spring."
                ),
                0.6,
            ),
            (
                "benedikt_x_valentine",
                "EpisodicEvent",
                "Benedikt forgot it was Valentine's Day until Chiara mentioned it at lunch.",
                0.3,
            ),
            (
                "hana_x_cvs",
                "EpisodicEvent",
                "Hana spent the week reading CVs from people who want to work on the engine.",
                0.3,
            ),
        ),
    ),
    (
        "2025-02-28",
        (
            (
                "benedikt_launch",
                "EpisodicEvent",
                (
                    "Tidewater finally launched on Tuesday and Benedikt said the first week's "
                    "sales beat the publisher's forecast."
                ),
                0.6,
            ),
            (
                "chiara_wedding_plan",
                "Goal",
                (
                    "Chiara and Freya want a small wedding in Bologna next year, with tortellini "
                    "instead of a cake."
                ),
                0.4,
            ),
            (
                "rafael_pb",
                "EpisodicEvent",
                (
                    "Rafael finally ran his parkrun in under twenty-five minutes and bought cake "
                    "for the whole office."
                ),
                0.4,
            ),
            (
                "hana_x_allnighter",
                "EpisodicEvent",
                (
                    "Hana stayed up all night before the launch fixing a crash on one particular "
                    "graphics card."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2025-03-14",
        (
            (
                "hana_running_again",
                "EpisodicEvent",
                "Hana is running again after the sprain, though only slow five-kilometre loops.",
                0.4,
            ),
            (
                "benedikt_farming",
                "Goal",
                (
                    "Benedikt wants the studio's next project to be a cosy farming game and has "
                    "started a pitch deck."
                ),
                0.5,
            ),
            (
                "chiara_osaka",
                "EpisodicEvent",
                (
                    "Chiara booked flights to Osaka for 2 April and will spend two weeks in Japan "
                    "with Freya."
                ),
                0.5,
            ),
            (
                "rafael_x_beanie",
                "EpisodicEvent",
                (
                    "Rafael shaved his head for a cancer charity and has been wearing a beanie "
                    "indoors ever since."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2025-03-28",
        (
            (
                "rafael_parents",
                "EpisodicEvent",
                (
                    "Rafael's parents are flying over from Recife in June for their first ever "
                    "trip to Scotland."
                ),
                0.5,
            ),
            (
                "hana_hired",
                "EpisodicEvent",
                "Hana hired her first two programmers, both recent graduates from Abertay.",
                0.4,
            ),
            (
                "benedikt_x_handover",
                "EpisodicEvent",
                (
                    "Benedikt is already planning his paternity leave and wrote a handover "
                    "document sixty pages long."
                ),
                0.3,
            ),
            (
                "chiara_x_tips",
                "EpisodicEvent",
                "Chiara asked Hana for Kyoto tips before the trip and got a three-page list.",
                0.3,
            ),
        ),
    ),
)

ASKS: tuple[tuple[str, str, str], ...] = (
    # single
    ("What does Rafael do at the studio?", "rafael_role", "single"),
    ("Which city did Benedikt live in before Glasgow?", "benedikt_role", "single"),
    ("What is Hana's rabbit called?", "hana_rabbit", "single"),
    ("What is Rafael allergic to?", "rafael_nuts", "single"),
    ("What does Benedikt's brother do?", "benedikt_brother benedikt_x_bock", "single"),
    ("What does Chiara's brother do for a living?", "chiara_brother chiara_trattoria", "single"),
    ("What does Hana's partner do for work?", "hana_euan", "single"),
    ("Which language is Rafael learning?", "rafael_gaelic rafael_gaelic_class", "single"),
    ("What does Chiara collect?", "chiara_synths", "single"),
    ("What does Rafael teach on Wednesday nights?", "rafael_capoeira", "single"),
    ("What does Benedikt's wife do?", "benedikt_jana", "single"),
    ("What is the name of Rafael's dog?", "rafael_dog", "single"),
    # multi
    (
        "Where did Rafael first meet the publisher that ended up signing Tidewater?",
        "rafael_tgs_back benedikt_publisher",
        "multi",
    ),
    (
        "Where is the sister of the character artist from Recife going to study?",
        "rafael_role rafael_bia_delft",
        "multi",
    ),
    (
        "What does the fiancee of the studio's sound designer do for a living?",
        "chiara_role chiara_freya",
        "multi",
    ),
    (
        "Where did the person who ran a half marathon in under two hours buy a flat?",
        "hana_race hana_flat",
        "multi",
    ),
    (
        "What is the brother of the sound designer from Bologna opening?",
        "chiara_role chiara_trattoria",
        "multi",
    ),
    (
        "What does the wife of the producer who ignores messages at weekends do?",
        "benedikt_weekends benedikt_jana",
        "multi",
    ),
    (
        "What film is the woman with the modular synth rig working on?",
        "chiara_synths chiara_horror",
        "multi",
    ),
    ("Where does Farofa's owner run on Saturday mornings?", "rafael_dog rafael_parkrun", "multi"),
    (
        "Which city is the woman who got engaged at Hogmanay from?",
        "chiara_engaged chiara_role chiara_bologna",
        "multi",
    ),
    (
        "How did Tidewater do once its delayed release finally came?",
        "benedikt_delay benedikt_launch",
        "multi",
    ),
    (
        "What is the name of the daughter of the man whose brother brews beer?",
        "benedikt_brother benedikt_mila",
        "multi",
    ),
    ("What job was Hana promoted to, and who did she hire?", "hana_promotion hana_hired", "multi"),
    # temporal
    ("When did Hana become a homeowner?", "hana_flat", "temporal"),
    ("When did Rafael go to Tokyo?", "rafael_tokyo rafael_tgs_back", "temporal"),
    ("When did Chiara and Freya decide to get married?", "chiara_engaged", "temporal"),
    ("When is Benedikt's second child due?", "benedikt_baby", "temporal"),
    ("When did Tidewater come out?", "benedikt_launch benedikt_delay", "temporal"),
    ("When did Hana hurt her ankle?", "hana_sprain", "temporal"),
    ("When did Rafael get his dog?", "rafael_dog", "temporal"),
    ("What day is Chiara flying to Japan?", "chiara_osaka", "temporal"),
    ("How did Hana's position at the studio change in February?", "hana_promotion", "temporal"),
    ("When did Hana do the Great Scottish Run?", "hana_race hana_halfmarathon", "temporal"),
    ("When are Rafael's parents visiting Scotland?", "rafael_parents", "temporal"),
    ("When was Rafael's visa renewed?", "rafael_visa", "temporal"),
    # open
    ("Would Rafael enjoy a beach holiday somewhere hot?", "rafael_cold rafael_surf", "open"),
    ("Would a walnut cake be a good birthday treat for Rafael?", "rafael_nuts", "open"),
    ("Is it OK to message Benedikt about a bug on a Saturday?", "benedikt_weekends", "open"),
    ("Could I ring Chiara at ten at night about the audio mix?", "chiara_calls", "open"),
    ("Should I ask Hana whether she and Euan are planning a family?", "hana_children", "open"),
    ("Would Benedikt be up for a tabletop evening?", "benedikt_boardgames", "open"),
    (
        "Would Chiara like an old drum machine from a car boot sale?",
        "chiara_synths chiara_x_soldering",
        "open",
    ),
    (
        "Would Hana be interested in joining a running club?",
        "hana_halfmarathon hana_race hana_running_again",
        "open",
    ),
    (
        "Is it a good idea to bring up the Brazilian election with Rafael at lunch?",
        "rafael_politics",
        "open",
    ),
    ("Would Chiara eat a beef ragu?", "chiara_veg", "open"),
    (
        "Could Hana help me with some Japanese phrases for a trip?",
        "hana_grandma hana_edinburgh",
        "open",
    ),
    (
        "Would Benedikt have time for a long work trip this summer?",
        "benedikt_baby benedikt_x_handover",
        "open",
    ),
)
