"""Scene ``harbour-flat`` of the observation data set (see observations.py): three flatmates in
Leeds and Priya's brother, noted over a year of chats. Written for this project (MIT).

Shared words on purpose: two sisters, three people with a Lisbon story, three cars, two
instruments, a cat and a cat allergy, hills loved and hated.
"""

from __future__ import annotations

NAME = "harbour-flat"
PEOPLE = ("Priya", "Tomasz", "Ines", "Arjun")
ASKED = "2025-02-15"

SESSIONS: tuple[tuple[str, tuple[tuple[str, str, str, float], ...]], ...] = (
    (
        "2024-02-03",
        (
            (
                "priya_job",
                "ProfileFact",
                (
                    "Priya said she works freelance as a graphic designer, mostly packaging for "
                    "small food and drink brands."
                ),
                0.6,
            ),
            (
                "tomasz_job",
                "ProfileFact",
                (
                    "Tomasz told us he is a mechanic at the bus depot on Kirkstall Road and "
                    "usually works the early shift."
                ),
                0.6,
            ),
            (
                "ines_job",
                "ProfileFact",
                (
                    "Ines mentioned she is a theatre nurse at St James's and often gets stuck on "
                    "long Saturday operating lists."
                ),
                0.6,
            ),
            (
                "flat_radiators",
                "EpisodicEvent",
                (
                    "Priya complained that the radiators in the flat take forever to warm up on "
                    "cold mornings."
                ),
                0.3,
            ),
            (
                "ines_x_sleet",
                "EpisodicEvent",
                (
                    "Ines walked home from the hospital in the sleet and said Leeds in February is"
                    " a punishment."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-02-17",
        (
            (
                "tomasz_skoda",
                "EpisodicEvent",
                (
                    "Tomasz said he finally sold his old Skoda Octavia after the gearbox failed "
                    "for the second time."
                ),
                0.5,
            ),
            (
                "arjun_bakery",
                "RelationshipFact",
                (
                    "Priya mentioned that her brother Arjun quit his office job to start a "
                    "sourdough bakery in Harrogate."
                ),
                0.6,
            ),
            (
                "ines_hometown",
                "ProfileFact",
                (
                    "Ines grew up in Setubal, just south of Lisbon, and her parents still live in "
                    "the same flat there."
                ),
                0.5,
            ),
            (
                "ines_x_soup",
                "EpisodicEvent",
                "Ines cooked a big pot of caldo verde on Sunday and Tomasz had three bowls of it.",
                0.3,
            ),
            (
                "tomasz_x_timetable",
                "EpisodicEvent",
                "Tomasz has been taking the bus to work lately and says the timetable is a joke.",
                0.3,
            ),
        ),
    ),
    (
        "2024-03-02",
        (
            (
                "priya_cello",
                "Goal",
                (
                    "Priya has started cello lessons on Tuesday evenings and hopes to play in an "
                    "amateur orchestra one day."
                ),
                0.6,
            ),
            (
                "tomasz_bass",
                "ProfileFact",
                (
                    "Tomasz plays bass in a covers band called The Late Buses that does pub gigs "
                    "around Armley."
                ),
                0.5,
            ),
            (
                "tomasz_catallergy",
                "ProfileFact",
                (
                    "Tomasz is allergic to cats; his eyes swell up whenever he stays at his "
                    "cousin's place."
                ),
                0.6,
            ),
            (
                "priya_x_ikea",
                "EpisodicEvent",
                (
                    "Priya went to IKEA for a new bookshelf and came back with candles and a plant"
                    " instead."
                ),
                0.3,
            ),
            (
                "ines_x_abba",
                "EpisodicEvent",
                (
                    "Ines said the surgeons on her list keep playing ABBA in theatre and she now "
                    "hums it in her sleep."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-03-16",
        (
            (
                "ines_cat",
                "EpisodicEvent",
                "Ines adopted a tabby from the rescue centre on Friday and has named her Nata.",
                0.5,
            ),
            (
                "tomasz_antihist",
                "EpisodicEvent",
                (
                    "Tomasz has started taking antihistamines every morning and keeps his bedroom "
                    "door shut."
                ),
                0.4,
            ),
            (
                "priya_sister",
                "RelationshipFact",
                (
                    "Priya's older sister Meera is a paediatrician in Bristol and has twin boys "
                    "who are six."
                ),
                0.5,
            ),
            (
                "flat_heating_row",
                "EpisodicEvent",
                "Tomasz and Ines argued about whether the heating should stay on overnight.",
                0.3,
            ),
            (
                "arjun_x_starter",
                "EpisodicEvent",
                "Arjun sent Priya a photo of his sourdough starter, which he has named Doughvid.",
                0.3,
            ),
        ),
    ),
    (
        "2024-04-06",
        (
            (
                "tomasz_sister",
                "RelationshipFact",
                (
                    "Tomasz said his younger sister Kasia lives in Gdansk and works in the office "
                    "of a ferry company."
                ),
                0.5,
            ),
            (
                "priya_dales",
                "Preference",
                (
                    "Priya loves long walks in the Yorkshire Dales and tries to get out to Malham "
                    "at least once a month."
                ),
                0.5,
            ),
            (
                "ines_hills",
                "Preference",
                (
                    "Ines said she can't stand walking uphill and would rather swim than go hiking"
                    " any day."
                ),
                0.5,
            ),
            (
                "ines_x_cafe",
                "EpisodicEvent",
                "Ines found a Portuguese cafe near Kirkgate Market that does decent custard tarts.",
                0.3,
            ),
            (
                "priya_x_plant",
                "EpisodicEvent",
                (
                    "Priya's new monstera has already grown two leaves and she has started talking"
                    " to it."
                ),
                0.3,
            ),
            (
                "tomasz_x_gym",
                "EpisodicEvent",
                "Tomasz joined a cheap gym in January and admits he has been twice.",
                0.3,
            ),
        ),
    ),
    (
        "2024-04-20",
        (
            (
                "priya_shellfish",
                "ProfileFact",
                "Priya is allergic to shellfish and always checks restaurant menus for prawns.",
                0.6,
            ),
            (
                "arjun_van",
                "EpisodicEvent",
                (
                    "Arjun bought a second-hand Citroen van for bakery deliveries, and Tomasz "
                    "checked it over for him."
                ),
                0.4,
            ),
            (
                "tomasz_pcv_goal",
                "Goal",
                (
                    "Tomasz wants to get a bus driving licence so he can drive the routes rather "
                    "than only repair the buses."
                ),
                0.5,
            ),
            (
                "priya_x_invoices",
                "EpisodicEvent",
                "Priya had a dull week of chasing unpaid invoices and spent Sunday doing laundry.",
                0.3,
            ),
        ),
    ),
    (
        "2024-05-11",
        (
            (
                "priya_lisbon",
                "EpisodicEvent",
                (
                    "Priya is back from a long weekend in Lisbon with university friends and loved"
                    " the old trams up to Alfama."
                ),
                0.5,
            ),
            (
                "ines_lisbon_tips",
                "EpisodicEvent",
                (
                    "Ines had given Priya a list of places to eat in Lisbon, including a tasca her"
                    " aunt swears by."
                ),
                0.3,
            ),
            (
                "tomasz_x_lisbon",
                "EpisodicEvent",
                (
                    "Tomasz said he went to Lisbon years ago for a stag do and remembers nothing "
                    "but the hills."
                ),
                0.3,
            ),
            (
                "flat_leak",
                "EpisodicEvent",
                "It rained all week and the kitchen window in the flat started leaking again.",
                0.3,
            ),
        ),
    ),
    (
        "2024-05-25",
        (
            (
                "ines_choir",
                "ProfileFact",
                "Ines sings alto in the hospital staff choir, which rehearses on Wednesday nights.",
                0.5,
            ),
            (
                "tomasz_pierogi",
                "Preference",
                (
                    "Tomasz's comfort food is his grandmother's potato and cheese pierogi; he "
                    "makes a huge batch every Christmas Eve."
                ),
                0.5,
            ),
            (
                "arjun_opened",
                "EpisodicEvent",
                (
                    "Arjun's bakery finally opened its doors this weekend and sold out of cardamom"
                    " buns by eleven."
                ),
                0.6,
            ),
            (
                "flat_eurovision",
                "EpisodicEvent",
                (
                    "Priya and Ines watched the Eurovision final together and argued over the "
                    "Portuguese entry."
                ),
                0.3,
            ),
            (
                "priya_x_haircut",
                "EpisodicEvent",
                "Priya got a short haircut and Ines said it makes her look like a film director.",
                0.3,
            ),
        ),
    ),
    (
        "2024-06-08",
        (
            (
                "priya_vegetarian",
                "Preference",
                (
                    "Priya has been vegetarian since she was fifteen, though she still eats eggs "
                    "and cheese."
                ),
                0.5,
            ),
            (
                "ines_fiat",
                "EpisodicEvent",
                (
                    "Ines bought a small used Fiat 500 so she can get to early theatre lists "
                    "without the night bus."
                ),
                0.5,
            ),
            (
                "tomasz_tatras",
                "Goal",
                (
                    "Tomasz is planning two weeks of hiking in the Tatra mountains with Kasia in "
                    "August."
                ),
                0.5,
            ),
            (
                "tomasz_x_keys",
                "EpisodicEvent",
                "Tomasz forgot his keys and sat on the doorstep for an hour until Priya got home.",
                0.3,
            ),
        ),
    ),
    (
        "2024-06-22",
        (
            (
                "priya_daniel",
                "Boundary",
                "Priya asked not to be reminded about her ex, Daniel; the breakup still stings.",
                0.7,
            ),
            (
                "ines_exam_goal",
                "Goal",
                (
                    "Ines is studying for an advanced nurse practitioner qualification and has her"
                    " exams in the autumn."
                ),
                0.5,
            ),
            (
                "tomasz_brudenell",
                "EpisodicEvent",
                (
                    "Tomasz's band played their biggest gig yet at the Brudenell and he snapped a "
                    "string halfway through."
                ),
                0.4,
            ),
            (
                "flat_bbq",
                "EpisodicEvent",
                "The flat had a barbecue in the back yard and the neighbours' kids joined in.",
                0.3,
            ),
            (
                "ines_x_hot",
                "EpisodicEvent",
                (
                    "Ines said the operating theatre was so hot this week that two surgeons nearly"
                    " fainted."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-07-06",
        (
            (
                "arjun_engaged",
                "RelationshipFact",
                (
                    "Arjun got engaged to his partner Sofia, who runs the coffee counter at the "
                    "bakery."
                ),
                0.5,
            ),
            (
                "priya_grade",
                "EpisodicEvent",
                "Priya passed her grade one cello exam with a merit and was thrilled about it.",
                0.5,
            ),
            (
                "ines_mum",
                "EpisodicEvent",
                (
                    "Ines's mother had a hip operation in Setubal, so Ines is flying home for a "
                    "week to help."
                ),
                0.5,
            ),
            (
                "priya_x_pie",
                "EpisodicEvent",
                "Priya made a vegetarian shepherd's pie and Tomasz said it needed more salt.",
                0.3,
            ),
        ),
    ),
    (
        "2024-07-27",
        (
            (
                "tomasz_theory",
                "EpisodicEvent",
                "Tomasz passed the bus driving theory test on his first try this week.",
                0.5,
            ),
            (
                "priya_tea",
                "Preference",
                (
                    "Priya only drinks tea, strong with lots of milk, and says coffee makes her "
                    "jittery."
                ),
                0.4,
            ),
            (
                "ines_bica",
                "Preference",
                (
                    "Ines can't start a shift without a bica, the short strong espresso she grew "
                    "up with."
                ),
                0.4,
            ),
            (
                "tomasz_x_lawnmower",
                "EpisodicEvent",
                (
                    "Tomasz spent Saturday fixing the landlord's lawnmower in exchange for a "
                    "cheaper month's rent."
                ),
                0.3,
            ),
            (
                "ines_x_stick",
                "EpisodicEvent",
                "Ines is back from Portugal and says her mum is already walking with a stick.",
                0.3,
            ),
        ),
    ),
    (
        "2024-08-17",
        (
            (
                "tomasz_rysy",
                "EpisodicEvent",
                (
                    "Tomasz got back from Poland with a sunburnt nose and said the ridge climb up "
                    "Rysy was the best day of the trip."
                ),
                0.5,
            ),
            (
                "priya_gin_client",
                "EpisodicEvent",
                (
                    "Priya landed her biggest contract yet, designing the labels for a small gin "
                    "distillery near Skipton."
                ),
                0.6,
            ),
            (
                "tomasz_x_sweets",
                "EpisodicEvent",
                "Kasia sent Tomasz back with a box of Polish sweets to share with the flat.",
                0.3,
            ),
            (
                "ines_x_soap",
                "EpisodicEvent",
                "Ines spent her days off sleeping and watching a Portuguese soap opera.",
                0.3,
            ),
        ),
    ),
    (
        "2024-09-07",
        (
            (
                "tomasz_offer",
                "EpisodicEvent",
                (
                    "Tomasz was offered a maintenance supervisor job at the Sheffield tram depot "
                    "and accepted it."
                ),
                0.5,
            ),
            (
                "ines_swim",
                "Preference",
                "Ines swims a mile at the Leeds International Pool every Sunday morning.",
                0.4,
            ),
            (
                "priya_meera_visit",
                "EpisodicEvent",
                (
                    "Priya's sister Meera came up with the twins and they all spent a day at the "
                    "Royal Armouries."
                ),
                0.4,
            ),
            (
                "tomasz_x_bus50",
                "EpisodicEvent",
                "Tomasz moaned that the number 50 bus was late three mornings in a row.",
                0.3,
            ),
            (
                "flat_paint",
                "EpisodicEvent",
                "Priya and Ines repainted the hallway a pale sage green over the bank holiday.",
                0.3,
            ),
        ),
    ),
    (
        "2024-09-28",
        (
            (
                "tomasz_moved",
                "EpisodicEvent",
                (
                    "Tomasz moved out this weekend into a one-bedroom flat in Sheffield near "
                    "Kelham Island."
                ),
                0.6,
            ),
            (
                "flat_room",
                "EpisodicEvent",
                "Priya and Ines put an advert online for someone to take Tomasz's old room.",
                0.4,
            ),
            (
                "ines_x_spider",
                "EpisodicEvent",
                "Ines found a huge spider in the bath and made Priya deal with it.",
                0.3,
            ),
            (
                "tomasz_x_boxes",
                "EpisodicEvent",
                (
                    "Tomasz borrowed Arjun's delivery van to carry his boxes and his bass amp down"
                    " the M1."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-10-12",
        (
            (
                "flat_ravi",
                "RelationshipFact",
                (
                    "The new flatmate is Ravi, a quiet chemistry PhD student who bakes bread at "
                    "weekends."
                ),
                0.4,
            ),
            (
                "ines_exam_pass",
                "EpisodicEvent",
                "Ines passed her advanced practice exams and will start the new role in January.",
                0.5,
            ),
            (
                "priya_gin_award",
                "EpisodicEvent",
                "The gin labels Priya designed won a packaging award at a trade show in Harrogate.",
                0.5,
            ),
            (
                "priya_x_burnt",
                "EpisodicEvent",
                "Priya burnt a tray of roast vegetables while she was on a call with a client.",
                0.3,
            ),
        ),
    ),
    (
        "2024-10-26",
        (
            (
                "tomasz_bolek",
                "EpisodicEvent",
                (
                    "Tomasz adopted a retired greyhound called Bolek now that he has a place of "
                    "his own."
                ),
                0.5,
            ),
            (
                "arjun_york",
                "Goal",
                (
                    "Arjun wants to open a second bakery in York next spring if the bank will lend"
                    " him the money."
                ),
                0.5,
            ),
            (
                "priya_x_pumpkin",
                "EpisodicEvent",
                "Priya carved a pumpkin with a cello on it for the front window.",
                0.3,
            ),
            (
                "ines_x_nights",
                "EpisodicEvent",
                "Ines picked up extra night shifts because her ward is short of staff.",
                0.3,
            ),
        ),
    ),
    (
        "2024-11-09",
        (
            (
                "priya_burnout",
                "EpisodicEvent",
                (
                    "Priya admitted she has been working past midnight most days and feels close "
                    "to burning out."
                ),
                0.6,
            ),
            (
                "tomasz_peak",
                "EpisodicEvent",
                (
                    "Tomasz has been taking Bolek walking in the Peak District every weekend since"
                    " the move."
                ),
                0.4,
            ),
            (
                "ines_fado",
                "Preference",
                (
                    "Ines gets homesick in winter and puts on old fado records when she misses her"
                    " family."
                ),
                0.5,
            ),
            (
                "flat_boiler",
                "EpisodicEvent",
                "The boiler broke again and the landlord took four days to send someone round.",
                0.3,
            ),
            (
                "priya_x_fireworks",
                "EpisodicEvent",
                "Priya went to the Roundhay Park fireworks and lost a glove in the crowd.",
                0.3,
            ),
        ),
    ),
    (
        "2024-11-30",
        (
            (
                "priya_money",
                "Boundary",
                (
                    "Priya would rather not talk about money or her overdraft; she finds the "
                    "subject stressful."
                ),
                0.6,
            ),
            (
                "arjun_wedding",
                "EpisodicEvent",
                (
                    "Arjun and Sofia have set their wedding for 17 May next year, at a hotel in "
                    "Harrogate."
                ),
                0.6,
            ),
            (
                "tomasz_visit",
                "EpisodicEvent",
                (
                    "Tomasz came back to Leeds for a night, brought a tub of pierogi and said the "
                    "Sheffield job is going well."
                ),
                0.4,
            ),
            (
                "flat_tree",
                "EpisodicEvent",
                (
                    "Priya and Ines put the Christmas tree up early and the cat kept knocking "
                    "baubles off it."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-12-14",
        (
            (
                "ines_xmas",
                "EpisodicEvent",
                "Ines flies out on 21 December to spend Christmas with her parents in Setubal.",
                0.5,
            ),
            (
                "priya_xmas",
                "EpisodicEvent",
                "Priya is spending Christmas at Meera's house in Bristol this year.",
                0.5,
            ),
            (
                "tomasz_xmas",
                "EpisodicEvent",
                "Tomasz is flying to Gdansk for Wigilia with Kasia and their mum.",
                0.5,
            ),
            (
                "ravi_x_wine",
                "EpisodicEvent",
                "Ravi made mulled wine for the flat and it tasted mostly of orange juice.",
                0.3,
            ),
            (
                "priya_x_tape",
                "EpisodicEvent",
                "Priya wrapped presents all evening and ran out of tape halfway through.",
                0.3,
            ),
        ),
    ),
    (
        "2025-01-04",
        (
            (
                "priya_resolution",
                "Goal",
                (
                    "Priya's goal for the new year is to take on fewer clients and keep her "
                    "weekends free for walking."
                ),
                0.5,
            ),
            (
                "tomasz_newband",
                "Goal",
                (
                    "Tomasz wants to find a band in Sheffield since The Late Buses split up after "
                    "he left."
                ),
                0.4,
            ),
            (
                "priya_x_dry",
                "EpisodicEvent",
                "Priya tried a dry January and gave up after nine days.",
                0.3,
            ),
            (
                "ines_x_cheese",
                "EpisodicEvent",
                "Ines came back from Portugal with a suitcase full of cheese and chourico.",
                0.3,
            ),
        ),
    ),
    (
        "2025-01-18",
        (
            (
                "ines_newrole",
                "EpisodicEvent",
                (
                    "Ines started her new advanced nurse practitioner job this week and is finally"
                    " working days."
                ),
                0.5,
            ),
            (
                "ines_mot",
                "EpisodicEvent",
                (
                    "Ines's Fiat failed its MOT on the brakes and Tomasz talked her through the "
                    "garage's quote on the phone."
                ),
                0.4,
            ),
            (
                "arjun_loan",
                "EpisodicEvent",
                "Arjun heard that the bank approved his loan for the York shop.",
                0.5,
            ),
            (
                "flat_snow",
                "EpisodicEvent",
                (
                    "It snowed overnight and Priya walked to the station because the buses weren't"
                    " running."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2025-02-01",
        (
            (
                "priya_orchestra",
                "EpisodicEvent",
                (
                    "Priya auditioned for the Leeds Community Orchestra and got a place on the "
                    "back desk of the cellos."
                ),
                0.5,
            ),
            (
                "tomasz_ska",
                "EpisodicEvent",
                (
                    "Tomasz joined a ska band in Sheffield that needed a bass player and has a "
                    "first gig in March."
                ),
                0.4,
            ),
            (
                "priya_x_client",
                "EpisodicEvent",
                "Priya turned down a client who wanted a logo by Monday for fifty pounds.",
                0.3,
            ),
            (
                "ines_x_vet",
                "EpisodicEvent",
                "Ines took the cat to the vet for her jabs and she sulked all evening.",
                0.3,
            ),
        ),
    ),
)

ASKS: tuple[tuple[str, str, str], ...] = (
    # single
    ("What instrument has Priya taken up?", "priya_cello priya_grade priya_orchestra", "single"),
    ("What did Tomasz do for a living when he lived in Leeds?", "tomasz_job", "single"),
    ("What's the name of Ines's cat?", "ines_cat", "single"),
    ("What does Tomasz cook every Christmas Eve?", "tomasz_pierogi", "single"),
    ("What does Priya's sister do for work?", "priya_sister", "single"),
    ("Where does Tomasz's sister live and what does she do?", "tomasz_sister", "single"),
    ("What is Priya allergic to?", "priya_shellfish", "single"),
    ("Where does Ines go swimming?", "ines_swim", "single"),
    ("What sort of business did Priya's brother start?", "arjun_bakery", "single"),
    ("What was the name of Tomasz's band in Leeds?", "tomasz_bass", "single"),
    ("What car does Ines drive?", "ines_fiat ines_mot", "single"),
    ("Who is Arjun marrying?", "arjun_engaged arjun_wedding", "single"),
    # multi
    ("Which city did the person who sold the Skoda move to?", "tomasz_skoda tomasz_moved", "multi"),
    (
        "What is the name of the animal that set off Tomasz's allergy at home?",
        "tomasz_catallergy ines_cat",
        "multi",
    ),
    ("What does the fiancee of Priya's brother do?", "arjun_bakery arjun_engaged", "multi"),
    ("What prize did Priya's biggest client job win?", "priya_gin_client priya_gin_award", "multi"),
    (
        "Where does the sister Tomasz went hiking with in August live?",
        "tomasz_tatras tomasz_sister",
        "multi",
    ),
    ("What car does the theatre nurse in the flat drive?", "ines_job ines_fiat", "multi"),
    (
        "Where is the man who opened a sourdough bakery getting married?",
        "arjun_bakery arjun_wedding",
        "multi",
    ),
    (
        "What kind of dog does the bass player from The Late Buses have now?",
        "tomasz_bass tomasz_bolek",
        "multi",
    ),
    (
        "Where is Arjun's second shop going to be, and can he afford it?",
        "arjun_york arjun_loan",
        "multi",
    ),
    (
        (
            "Priya took up an instrument: how did her first exam go, and did she get into an "
            "orchestra?"
        ),
        "priya_grade priya_orchestra",
        "multi",
    ),
    (
        "Where will the flatmate who grew up near Lisbon spend Christmas?",
        "ines_hometown ines_xmas",
        "multi",
    ),
    ("Where does Tomasz take his greyhound at weekends?", "tomasz_bolek tomasz_peak", "multi"),
    # temporal
    ("When did Arjun's bakery open?", "arjun_opened", "temporal"),
    (
        "When did Tomasz get through the written part of his bus licence?",
        "tomasz_theory",
        "temporal",
    ),
    ("When did Tomasz move out of the flat?", "tomasz_moved", "temporal"),
    ("What did Priya achieve with her music in July?", "priya_grade", "temporal"),
    ("When is Arjun's wedding?", "arjun_wedding", "temporal"),
    ("When did Ines get her cat?", "ines_cat", "temporal"),
    ("What did Tomasz get up to in August?", "tomasz_rysy tomasz_tatras", "temporal"),
    (
        "When did Ines take up her promotion at the hospital?",
        "ines_newrole ines_exam_pass",
        "temporal",
    ),
    ("When did Priya go to Lisbon?", "priya_lisbon", "temporal"),
    ("What happened with Priya's gin labels in October?", "priya_gin_award", "temporal"),
    ("What date is Ines flying to Portugal for Christmas?", "ines_xmas", "temporal"),
    ("When did Tomasz get rid of his car?", "tomasz_skoda", "temporal"),
    ("When did Ines go home to look after her mother?", "ines_mum", "temporal"),
    # open
    (
        "Would Tomasz enjoy a weekend of camping in the mountains?",
        "tomasz_tatras tomasz_rysy tomasz_peak",
        "open",
    ),
    ("Would Ines want to join a hillwalking club?", "ines_hills", "open"),
    (
        "Is a seafood paella a good thing to cook for Priya?",
        "priya_shellfish priya_vegetarian",
        "open",
    ),
    ("Should I bring Priya a latte when I come over?", "priya_tea", "open"),
    (
        "Could Tomasz stay a week with friends who own two cats?",
        "tomasz_catallergy tomasz_antihist",
        "open",
    ),
    ("Is it a good idea to ask Priya how Daniel is doing?", "priya_daniel", "open"),
    ("What might cheer Ines up on a dark winter evening?", "ines_fado ines_hometown", "open"),
    (
        "Would Priya like tickets to a classical concert?",
        "priya_cello priya_grade priya_orchestra",
        "open",
    ),
    ("Is Priya taking on too much work lately?", "priya_burnout priya_resolution", "open"),
    ("Could Tomasz tell me what's wrong with my car?", "tomasz_job arjun_van ines_mot", "open"),
    ("Should I ask Priya how much she earns from the gin job?", "priya_money", "open"),
    ("Would Ines enjoy a karaoke night?", "ines_choir", "open"),
)
