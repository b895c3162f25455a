"""Scene ``quay-street`` of the observation data set (see observations.py): a village book club
on the Northumberland coast, noted after its meetings and coffee mornings for a year. Written
for this project (MIT).

Shared words on purpose: three sisters, two daughters, two dogs, two boats, two trips to
Morocco, one sea swimmer among people who won't swim, and the lifeboat that everyone mentions.
"""

from __future__ import annotations

NAME = "quay-street"
PEOPLE = ("Elspeth", "Kwame", "Nadia", "Gareth")
ASKED = "2024-05-25"

SESSIONS: tuple[tuple[str, tuple[tuple[str, str, str, float], ...]], ...] = (
    (
        "2023-06-03",
        (
            (
                "elspeth_gp",
                "ProfileFact",
                (
                    "Elspeth was a GP in Newcastle for thirty-five years and retired to the "
                    "village after her husband died."
                ),
                0.6,
            ),
            (
                "kwame_teacher",
                "ProfileFact",
                "Kwame teaches history at the high school in Alnwick and runs its debating club.",
                0.6,
            ),
            (
                "gareth_fisher",
                "ProfileFact",
                (
                    "Gareth fishes for crab and lobster out of the harbour in his boat, the Mary "
                    "Ellen."
                ),
                0.6,
            ),
            (
                "x_thriller",
                "EpisodicEvent",
                (
                    "The book club read a Scandinavian thriller this month and Elspeth guessed the"
                    " killer by chapter three."
                ),
                0.3,
            ),
            (
                "x_fret",
                "EpisodicEvent",
                (
                    "Kwame said the sea fret had sat over the village all week and the beach was "
                    "empty."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2023-06-17",
        (
            (
                "kwame_swim",
                "Preference",
                (
                    "Kwame swims in the sea off the harbour beach every morning of the year, even "
                    "in January."
                ),
                0.5,
            ),
            (
                "gareth_lifeboat",
                "ProfileFact",
                "Gareth volunteers as crew on the lifeboat and his pager goes off at all hours.",
                0.5,
            ),
            (
                "elspeth_sister",
                "RelationshipFact",
                "Elspeth's younger sister Morag lives on Orkney and keeps sheep.",
                0.5,
            ),
            (
                "elspeth_puffins",
                "Preference",
                "Elspeth takes the boat out to the Farne Islands every June to watch the puffins.",
                0.4,
            ),
            (
                "x_mackerel",
                "EpisodicEvent",
                "Gareth grilled mackerel on the harbour wall for anyone who wanted some.",
                0.3,
            ),
        ),
    ),
    (
        "2023-07-08",
        (
            (
                "kwame_family",
                "RelationshipFact",
                (
                    "Kwame lives with his wife Abena, a pharmacist, and their daughter Efua, who "
                    "is seven."
                ),
                0.5,
            ),
            (
                "gareth_daughter",
                "RelationshipFact",
                (
                    "Gareth's daughter Ffion is sixteen and wants to be a vet; she helps on the "
                    "boat in summer."
                ),
                0.5,
            ),
            (
                "gareth_noswim",
                "ProfileFact",
                "Gareth admitted that, despite thirty years at sea, he cannot swim a stroke.",
                0.4,
            ),
            (
                "elspeth_crime",
                "Preference",
                "Elspeth only really enjoys crime novels and has read every Ian Rankin twice.",
                0.4,
            ),
            (
                "elspeth_audiobooks",
                "Preference",
                "Elspeth can't stand audiobooks and says a story has to be read on paper.",
                0.4,
            ),
            (
                "x_gala",
                "EpisodicEvent",
                "The village gala was rained off and the tug of war moved into the pub car park.",
                0.3,
            ),
        ),
    ),
    (
        "2023-07-22",
        (
            (
                "elspeth_memoir",
                "Goal",
                (
                    "Elspeth is writing a memoir about her years as a country doctor and wants a "
                    "draft done by next summer."
                ),
                0.5,
            ),
            (
                "kwame_accra",
                "EpisodicEvent",
                (
                    "Kwame is taking Abena and Efua to Accra for three weeks in August to see his "
                    "grandmother."
                ),
                0.5,
            ),
            (
                "gareth_bran",
                "RelationshipFact",
                (
                    "Gareth's border collie Bran rides on the Mary Ellen every day and barks at "
                    "the seals."
                ),
                0.4,
            ),
            (
                "x_tomatoes",
                "EpisodicEvent",
                (
                    "Elspeth's conservatory tomatoes finally ripened and she gave a bag of them to"
                    " Kwame."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2023-08-12",
        (
            (
                "gareth_engine",
                "Goal",
                (
                    "Gareth is saving for a new engine for the Mary Ellen because the old one "
                    "keeps cutting out."
                ),
                0.5,
            ),
            (
                "elspeth_dinghy",
                "Preference",
                (
                    "Elspeth sails a little wooden dinghy called Puffin in the bay on calm summer "
                    "evenings."
                ),
                0.4,
            ),
            (
                "elspeth_advice",
                "Boundary",
                (
                    "Elspeth no longer gives medical advice to neighbours and asks people to see "
                    "their own GP."
                ),
                0.6,
            ),
            (
                "x_slipway",
                "EpisodicEvent",
                "Gareth grumbled that tourists keep parking across the slipway in August.",
                0.3,
            ),
            (
                "kwame_x_tangier",
                "EpisodicEvent",
                (
                    "Kwame said he once spent a week in Tangier as a student and got hopelessly "
                    "lost in the medina."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2023-08-26",
        (
            (
                "kwame_accra_back",
                "EpisodicEvent",
                (
                    "Kwame is back from Ghana and said his grandmother danced at the family party "
                    "at ninety-one."
                ),
                0.5,
            ),
            (
                "gareth_choir",
                "ProfileFact",
                "Gareth grew up near Swansea and sings bass in a male voice choir in Morpeth.",
                0.4,
            ),
            (
                "elspeth_isla",
                "RelationshipFact",
                "Elspeth's granddaughter Isla is starting medical school in Aberdeen this autumn.",
                0.5,
            ),
            (
                "x_jellyfish",
                "EpisodicEvent",
                (
                    "Kwame was stung by a jellyfish on his morning swim and was more annoyed than "
                    "hurt."
                ),
                0.3,
            ),
            (
                "gareth_x_crab",
                "EpisodicEvent",
                "Gareth landed a record crab this week, a cock crab of nearly three kilos.",
                0.3,
            ),
        ),
    ),
    (
        "2023-09-09",
        (
            (
                "nadia_moved",
                "EpisodicEvent",
                (
                    "Nadia has just moved up from London and is opening a pottery studio in the "
                    "old net loft on Quay Street."
                ),
                0.6,
            ),
            (
                "nadia_pepper",
                "RelationshipFact",
                (
                    "Nadia has a nervous whippet called Pepper who will not go anywhere near the "
                    "water."
                ),
                0.4,
            ),
            (
                "kwame_chess",
                "Preference",
                (
                    "Kwame plays chess online every evening and is trying to start a chess club at"
                    " school."
                ),
                0.4,
            ),
            (
                "x_welcome",
                "EpisodicEvent",
                "Elspeth brought Nadia a welcome cake and stayed two hours talking about books.",
                0.3,
            ),
        ),
    ),
    (
        "2023-09-30",
        (
            (
                "nadia_sister",
                "RelationshipFact",
                (
                    "Nadia's older sister Rima is a lawyer in London and thinks Nadia is mad to "
                    "move north."
                ),
                0.5,
            ),
            (
                "nadia_divorce",
                "Boundary",
                (
                    "Nadia asked not to be quizzed about her divorce; she moved north partly to "
                    "get away from it."
                ),
                0.6,
            ),
            (
                "gareth_rescue",
                "EpisodicEvent",
                (
                    "Gareth was out on the lifeboat for six hours in a gale to tow in a yacht with"
                    " a broken mast."
                ),
                0.5,
            ),
            (
                "kwame_sister",
                "RelationshipFact",
                "Kwame's sister Ama is a midwife in Manchester and has just had a baby boy.",
                0.5,
            ),
            (
                "x_sixthform",
                "EpisodicEvent",
                (
                    "Ffion has started sixth form and Gareth says she already has more homework "
                    "than he ever did."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2023-10-14",
        (
            (
                "nadia_opened",
                "EpisodicEvent",
                (
                    "Nadia's pottery studio opened on Saturday and she sold half her mugs to day-"
                    "trippers."
                ),
                0.6,
            ),
            (
                "kwame_history",
                "Goal",
                (
                    "Kwame wants to write a short history of the village's herring fishery and is "
                    "interviewing old fishermen."
                ),
                0.5,
            ),
            (
                "gareth_bill",
                "EpisodicEvent",
                (
                    "Gareth introduced Kwame to his neighbour Bill, who gutted herring on the quay"
                    " in the 1950s."
                ),
                0.4,
            ),
            (
                "x_ghost",
                "EpisodicEvent",
                (
                    "The book club's October pick was a ghost story and Nadia came along for the "
                    "first time."
                ),
                0.3,
            ),
            (
                "elspeth_x_chutney",
                "EpisodicEvent",
                (
                    "Elspeth made apple chutney and left jars on the book club table for anyone to"
                    " take."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2023-10-28",
        (
            (
                "nadia_vegan",
                "Preference",
                "Nadia is vegan and was delighted that the village cafe now does oat milk.",
                0.5,
            ),
            (
                "elspeth_morocco",
                "Goal",
                (
                    "Elspeth has booked a fortnight in Morocco in March with a walking group, "
                    "starting in Marrakech."
                ),
                0.5,
            ),
            (
                "gareth_hand",
                "EpisodicEvent",
                (
                    "Gareth crushed two fingers in the winch that hauls his pots and will be off "
                    "the boat for a month."
                ),
                0.5,
            ),
            (
                "kwame_x_halloween",
                "EpisodicEvent",
                "Efua dressed as a jellyfish for Halloween, inspired by her dad's sting.",
                0.3,
            ),
        ),
    ),
    (
        "2023-11-11",
        (
            (
                "nadia_classes",
                "Goal",
                (
                    "Nadia wants to run evening pottery classes for beginners once a second kiln "
                    "arrives."
                ),
                0.5,
            ),
            (
                "gareth_smoking",
                "EpisodicEvent",
                (
                    "Gareth has given up smoking after twenty years and is chewing liquorice root "
                    "instead."
                ),
                0.5,
            ),
            (
                "elspeth_cataract",
                "EpisodicEvent",
                "Elspeth's cataract operation is booked for the middle of January in Newcastle.",
                0.5,
            ),
            (
                "kwame_x_memorial",
                "EpisodicEvent",
                (
                    "Kwame's pupils read out the names from the village war memorial at the "
                    "Remembrance service."
                ),
                0.3,
            ),
            (
                "nadia_x_fireworks",
                "EpisodicEvent",
                "Nadia kept Pepper indoors with the radio on because the fireworks terrified her.",
                0.3,
            ),
        ),
    ),
    (
        "2023-11-25",
        (
            (
                "gareth_rhys",
                "Boundary",
                (
                    "Gareth asked that nobody mention his older brother Rhys, who drowned off "
                    "Pembrokeshire years ago."
                ),
                0.7,
            ),
            (
                "nadia_kiln",
                "EpisodicEvent",
                (
                    "Nadia's old kiln cracked during a firing and she lost a whole batch of "
                    "Christmas orders."
                ),
                0.5,
            ),
            (
                "kwame_photo",
                "Boundary",
                (
                    "Kwame hates being photographed and asked to be left out of the book club's "
                    "Christmas picture."
                ),
                0.4,
            ),
            (
                "x_tombola",
                "EpisodicEvent",
                (
                    "The village hall Christmas fair is on 16 December and Elspeth has volunteered"
                    " for the tombola."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2023-12-09",
        (
            (
                "nadia_market",
                "EpisodicEvent",
                (
                    "Nadia had a stall at the Alnwick Christmas market and sold every one of her "
                    "blue-glaze bowls."
                ),
                0.5,
            ),
            (
                "elspeth_xmas",
                "EpisodicEvent",
                (
                    "Elspeth is spending Christmas with her son's family in Durham, and Isla will "
                    "be home from Aberdeen."
                ),
                0.4,
            ),
            (
                "kwame_dip_plan",
                "Goal",
                (
                    "Kwame is organising a Boxing Day dip in the harbour to raise money for the "
                    "lifeboat."
                ),
                0.4,
            ),
            (
                "gareth_fingers_ok",
                "EpisodicEvent",
                (
                    "Gareth's fingers have healed and he is back out on the Mary Ellen checking "
                    "his pots."
                ),
                0.4,
            ),
        ),
    ),
    (
        "2023-12-30",
        (
            (
                "kwame_dip_done",
                "EpisodicEvent",
                (
                    "Kwame's Boxing Day dip raised nine hundred pounds for the lifeboat and forty "
                    "people went in."
                ),
                0.4,
            ),
            (
                "gareth_ffion_vets",
                "EpisodicEvent",
                (
                    "Ffion has a week of work experience lined up at the vets in Alnwick in the "
                    "spring."
                ),
                0.4,
            ),
            (
                "nadia_reads",
                "Preference",
                "Nadia prefers poetry and short stories and says long crime novels bore her.",
                0.4,
            ),
            (
                "elspeth_x_battery",
                "EpisodicEvent",
                "Elspeth's car wouldn't start in the frost and Gareth jumped it from his van.",
                0.3,
            ),
            (
                "x_whisky",
                "EpisodicEvent",
                (
                    "The Christmas fair tombola ran out of prizes and Elspeth gave away her own "
                    "bottle of whisky."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-01-20",
        (
            (
                "elspeth_eye_done",
                "EpisodicEvent",
                (
                    "Elspeth had her cataract done on Tuesday and says colours are so bright she "
                    "keeps staring at the sea."
                ),
                0.5,
            ),
            (
                "nadia_kiln_new",
                "EpisodicEvent",
                (
                    "Nadia's new electric kiln arrived and Gareth and Kwame carried it up the net "
                    "loft stairs."
                ),
                0.5,
            ),
            (
                "kwame_x_sledge",
                "EpisodicEvent",
                "School closed for a snow day and Kwame took Efua sledging on the golf course.",
                0.3,
            ),
            (
                "gareth_x_nets",
                "EpisodicEvent",
                (
                    "Gareth spent a stormy week mending nets in his shed because no boat could get"
                    " out."
                ),
                0.3,
            ),
            (
                "kwame_x_french",
                "EpisodicEvent",
                "Kwame's new year resolution is to read one book in French every month.",
                0.3,
            ),
        ),
    ),
    (
        "2024-02-03",
        (
            (
                "nadia_classes_start",
                "EpisodicEvent",
                (
                    "Nadia ran her first beginners' pottery class on Thursday, with eight people "
                    "including Kwame."
                ),
                0.5,
            ),
            (
                "gareth_engine_bought",
                "EpisodicEvent",
                (
                    "Gareth finally bought a reconditioned engine for the Mary Ellen with money "
                    "from a good autumn."
                ),
                0.5,
            ),
            (
                "elspeth_memoir_stuck",
                "EpisodicEvent",
                (
                    "Elspeth has written twelve chapters of her memoir and is stuck on the years "
                    "after her husband died."
                ),
                0.4,
            ),
            (
                "kwame_x_pot",
                "EpisodicEvent",
                (
                    "Kwame's first pot collapsed on the wheel and everyone laughed, him loudest of"
                    " all."
                ),
                0.3,
            ),
            (
                "nadia_radio",
                "EpisodicEvent",
                (
                    "Nadia was interviewed on BBC Radio Newcastle about leaving London to open a "
                    "studio by the sea."
                ),
                0.4,
            ),
        ),
    ),
    (
        "2024-02-24",
        (
            (
                "nadia_fez",
                "EpisodicEvent",
                (
                    "Nadia is back from a week in Fez, where she studied traditional zellige tiles"
                    " and glazes."
                ),
                0.5,
            ),
            (
                "gareth_x_chips",
                "EpisodicEvent",
                (
                    "Ffion passed her mock exams and Gareth took her out for fish and chips in "
                    "Seahouses."
                ),
                0.3,
            ),
            (
                "kwame_chess_club",
                "EpisodicEvent",
                (
                    "Kwame's school chess club now has twenty members and won its first match "
                    "against a school in Berwick."
                ),
                0.4,
            ),
            (
                "elspeth_x_jigsaw",
                "EpisodicEvent",
                (
                    "Elspeth finished a thousand-piece jigsaw of the Farne Islands and then took "
                    "it apart again."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-03-09",
        (
            (
                "elspeth_marrakech",
                "EpisodicEvent",
                (
                    "Elspeth leaves for Marrakech on Monday and has been practising her schoolgirl"
                    " French."
                ),
                0.5,
            ),
            (
                "nadia_x_paw",
                "EpisodicEvent",
                (
                    "Pepper the whippet finally put one paw in the sea and then ran all the way "
                    "back to the car."
                ),
                0.3,
            ),
            (
                "gareth_badge",
                "EpisodicEvent",
                (
                    "Gareth was given a long-service badge by the lifeboat charity for fifteen "
                    "years on the crew."
                ),
                0.5,
            ),
            (
                "kwame_interview",
                "EpisodicEvent",
                (
                    "Kwame applied to be head of humanities at his school and has an interview "
                    "after Easter."
                ),
                0.5,
            ),
        ),
    ),
    (
        "2024-03-23",
        (
            (
                "kwame_booklet",
                "EpisodicEvent",
                (
                    "Kwame's herring history is going to be printed by the county archive as a "
                    "small booklet."
                ),
                0.4,
            ),
            (
                "nadia_x_clay",
                "EpisodicEvent",
                (
                    "Nadia came to book club covered in clay dust and apologised for the state of "
                    "her jumper."
                ),
                0.3,
            ),
            (
                "gareth_x_weight",
                "EpisodicEvent",
                (
                    "Gareth says it's four months without a cigarette now and he has put on half a"
                    " stone."
                ),
                0.4,
            ),
            (
                "x_eggs",
                "EpisodicEvent",
                (
                    "The library Easter egg hunt is next Saturday and Efua has been practising by "
                    "hiding Kwame's keys."
                ),
                0.3,
            ),
        ),
    ),
    (
        "2024-04-13",
        (
            (
                "elspeth_atlas",
                "EpisodicEvent",
                (
                    "Elspeth is back from Morocco and said the walk through the Atlas villages was"
                    " harder than any marathon."
                ),
                0.5,
            ),
            (
                "kwame_head",
                "EpisodicEvent",
                "Kwame got the head of humanities job and starts it in September.",
                0.5,
            ),
            (
                "nadia_plates",
                "EpisodicEvent",
                (
                    "Nadia was asked to make two hundred plates for a new seafood restaurant in "
                    "Newcastle."
                ),
                0.5,
            ),
            (
                "gareth_x_seals",
                "EpisodicEvent",
                "Gareth counted over a hundred seals on the rocks off the point this week.",
                0.3,
            ),
            (
                "nadia_rima_visit",
                "EpisodicEvent",
                (
                    "Nadia's sister came up from London for the weekend and admitted the village "
                    "is lovely."
                ),
                0.4,
            ),
        ),
    ),
    (
        "2024-04-27",
        (
            (
                "nadia_gallery",
                "Goal",
                "Nadia hopes to get her work into a gallery in Edinburgh by the end of the year.",
                0.4,
            ),
            (
                "gareth_ffion_edinburgh",
                "Goal",
                "Ffion has decided she wants to apply to the vet school in Edinburgh.",
                0.4,
            ),
            (
                "elspeth_x_castle",
                "EpisodicEvent",
                (
                    "Isla came to stay with Elspeth over the Easter break and they walked to "
                    "Dunstanburgh Castle."
                ),
                0.3,
            ),
            (
                "kwame_x_nine",
                "EpisodicEvent",
                (
                    "Kwame reported that the sea is up to nine degrees and called it positively "
                    "tropical."
                ),
                0.3,
            ),
            (
                "gareth_x_purrs",
                "EpisodicEvent",
                "Gareth says the new engine purrs and the Mary Ellen has never been so quick.",
                0.3,
            ),
        ),
    ),
    (
        "2024-05-11",
        (
            (
                "elspeth_memoir_done",
                "EpisodicEvent",
                (
                    "Elspeth finished the first full draft of her memoir and has asked Kwame to "
                    "read it."
                ),
                0.5,
            ),
            (
                "gareth_puffin_trips",
                "Goal",
                (
                    "Gareth wants to take visitors out to see the puffins this summer to earn some"
                    " extra money."
                ),
                0.4,
            ),
            (
                "nadia_x_vet",
                "EpisodicEvent",
                (
                    "Nadia took Pepper to the vet for a sore paw and Ffion, on work experience, "
                    "held her still."
                ),
                0.3,
            ),
            (
                "kwame_x_crab",
                "EpisodicEvent",
                (
                    "Efua turned eight and had a birthday party on the beach with a cake shaped "
                    "like a crab."
                ),
                0.3,
            ),
            (
                "x_lighthouse",
                "EpisodicEvent",
                (
                    "The book club read a novel about a lighthouse keeper and Gareth said it got "
                    "the boats all wrong."
                ),
                0.3,
            ),
        ),
    ),
)

ASKS: tuple[tuple[str, str, str], ...] = (
    # single
    ("What was Elspeth's job before she retired?", "elspeth_gp", "single"),
    ("What subject does Kwame teach?", "kwame_teacher", "single"),
    ("What does Gareth catch for a living?", "gareth_fisher gareth_x_crab", "single"),
    ("What kind of dog does Nadia have?", "nadia_pepper", "single"),
    ("What does Kwame's wife do for work?", "kwame_family", "single"),
    ("Where does Elspeth's sister live?", "elspeth_sister", "single"),
    ("What does Nadia's sister do?", "nadia_sister", "single"),
    ("What does Gareth's daughter want to be?", "gareth_daughter gareth_ffion_edinburgh", "single"),
    ("What sort of books does Elspeth like?", "elspeth_crime", "single"),
    ("Which choir does Gareth sing in?", "gareth_choir", "single"),
    ("Where is Elspeth's granddaughter studying?", "elspeth_isla elspeth_xmas", "single"),
    ("What does Kwame do every morning before school?", "kwame_swim", "single"),
    # multi
    (
        "What does the wife of the man who swims in the sea all year round do?",
        "kwame_swim kwame_family",
        "multi",
    ),
    (
        "What breed is the dog that rides on the lifeboat volunteer's boat?",
        "gareth_lifeboat gareth_bran",
        "multi",
    ),
    (
        "What is the granddaughter of the retired Newcastle doctor studying?",
        "elspeth_gp elspeth_isla",
        "multi",
    ),
    (
        "Where did the potter who moved up from London go to learn about tiles?",
        "nadia_moved nadia_fez",
        "multi",
    ),
    (
        "What happened to the kiln of the woman with the studio on Quay Street?",
        "nadia_moved nadia_kiln",
        "multi",
    ),
    (
        "What did the man who crushed his fingers in a winch buy for his boat?",
        "gareth_hand gareth_engine_bought",
        "multi",
    ),
    ("What is the name of the history teacher's daughter?", "kwame_teacher kwame_family", "multi"),
    (
        "What job does the sister of the man researching the herring fishery have?",
        "kwame_history kwame_sister",
        "multi",
    ),
    (
        "Who is printing the history that Gareth's neighbour Bill helped with?",
        "gareth_bill kwame_booklet",
        "multi",
    ),
    (
        "What big order did the owner of the dog that is scared of water get?",
        "nadia_pepper nadia_plates",
        "multi",
    ),
    (
        "Where does the daughter of the man who can't swim want to study?",
        "gareth_noswim gareth_ffion_edinburgh",
        "multi",
    ),
    (
        "Which mountains did the woman who sails a dinghy called Puffin walk in?",
        "elspeth_dinghy elspeth_atlas",
        "multi",
    ),
    # temporal
    ("When did Nadia move to the village?", "nadia_moved", "temporal"),
    ("When did Nadia's studio open?", "nadia_opened", "temporal"),
    ("When did Elspeth have her eye operation?", "elspeth_eye_done elspeth_cataract", "temporal"),
    ("When did Gareth stop smoking?", "gareth_smoking gareth_x_weight", "temporal"),
    ("When did Elspeth go to Morocco?", "elspeth_marrakech elspeth_morocco", "temporal"),
    ("When was Kwame in Ghana?", "kwame_accra kwame_accra_back", "temporal"),
    ("When did Gareth injure his hand?", "gareth_hand", "temporal"),
    ("When did Kwame start going to pottery classes?", "nadia_classes_start", "temporal"),
    ("When does Kwame start his new head of department job?", "kwame_head", "temporal"),
    ("When was Gareth's longest callout with the lifeboat?", "gareth_rescue", "temporal"),
    ("When did Gareth get a new engine?", "gareth_engine_bought", "temporal"),
    ("When did Elspeth finish the draft of her book?", "elspeth_memoir_done", "temporal"),
    # open
    ("Would Gareth enjoy a wild swimming trip?", "gareth_noswim", "open"),
    ("Would Nadia's dog enjoy a day at the beach?", "nadia_pepper nadia_x_paw", "open"),
    ("Should I ask Elspeth about the rash on my arm?", "elspeth_advice", "open"),
    ("Would Elspeth like an audiobook for her birthday?", "elspeth_audiobooks", "open"),
    ("Would a new crime novel make a good present for Nadia?", "nadia_reads", "open"),
    ("Should I ask Gareth about his late brother?", "gareth_rhys", "open"),
    ("Would Kwame want to be in the group photo at the summer party?", "kwame_photo", "open"),
    ("Would Nadia eat a cheese scone?", "nadia_vegan", "open"),
    ("Would Kwame be up for a strategy game night?", "kwame_chess kwame_chess_club", "open"),
    ("Should I bring up Nadia's ex-husband when we talk?", "nadia_divorce", "open"),
    ("Would Elspeth enjoy a boat trip to see seabirds?", "elspeth_puffins elspeth_dinghy", "open"),
    (
        "Would Kwame be a good person to ask about the village's past?",
        "kwame_history kwame_booklet",
        "open",
    ),
)
