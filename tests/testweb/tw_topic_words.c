/* The vocabularies of the topical web (tw_topic.h): one list per topic,
 * written with the inflections real text has (sail, sails, sailing,
 * sailed, sailor), a few words shared between topics as real topics share
 * them (a boat is sailed and fished from; a queen is a chess piece and a
 * bee), and the general words every page is mostly made of, stop words
 * among them. Topic 0 is the target of the tests; topic 1, its neighbour,
 * is the bridge to its hidden sites. */
#include "tests/testweb/tw_topic.h"

static const char *const sailing[] = {
  "sail", "sails", "sailing", "sailed", "sailor", "sailors", "yacht", "yachts", "yachting",
  "boat", "boats", "hull", "hulls", "keel", "mast", "masts", "rigging", "regatta",
  "regattas", "harbour", "harbours", "marina", "marinas", "mooring", "moored", "anchor",
  "anchored", "anchorage", "tack", "tacking", "jib", "spinnaker", "dinghy", "dinghies",
  "helm", "helmsman", "crew", "crews", "knots", "windward", "leeward", "navigation",
  "navigating", NULL };
static const char *const fishing[] = {
  "fish", "fishing", "fished", "fisherman", "fishermen", "angler", "anglers", "angling",
  "rod", "rods", "reel", "reels", "bait", "baits", "lure", "lures", "hook", "hooks", "catch",
  "caught", "trout", "salmon", "carp", "pike", "tackle", "net", "nets", "river", "rivers",
  "lake", "lakes", "boat", "shore", "pier", "cast", "casting", "fly", "flies", "harbour",
  NULL };
static const char *const gardening[] = {
  "garden", "gardens", "gardening", "gardener", "gardeners", "soil", "compost", "plant",
  "plants", "planting", "planted", "seed", "seeds", "seedling", "flower", "flowers",
  "flowering", "bloom", "blooms", "rose", "roses", "shrub", "shrubs", "hedge", "pruning",
  "pruned", "weed", "weeds", "weeding", "mulch", "lawn", "lawns", "bulb", "bulbs",
  "greenhouse", "vegetable", "vegetables", NULL };
static const char *const cooking[] = {
  "cook", "cooking", "cooked", "recipe", "recipes", "kitchen", "kitchens", "oven", "ovens",
  "bake", "baking", "baked", "roast", "roasted", "sauce", "sauces", "flour", "butter",
  "sugar", "salt", "pepper", "garlic", "onion", "onions", "simmer", "simmering", "boil",
  "boiled", "fry", "fried", "chef", "chefs", "dish", "dishes", "ingredient", "ingredients",
  NULL };
static const char *const astronomy[] = {
  "star", "stars", "planet", "planets", "telescope", "telescopes", "galaxy", "galaxies",
  "orbit", "orbits", "orbiting", "comet", "comets", "asteroid", "asteroids", "nebula",
  "nebulae", "moon", "moons", "eclipse", "eclipses", "astronomer", "astronomers",
  "observatory", "cosmic", "cosmos", "universe", "supernova", "constellation",
  "constellations", "solar", "lunar", "meteor", "meteors", NULL };
static const char *const football[] = {
  "football", "footballer", "footballers", "goal", "goals", "goalkeeper", "striker",
  "strikers", "midfield", "midfielder", "defender", "defenders", "match", "matches",
  "league", "leagues", "pitch", "referee", "penalty", "penalties", "tackle", "tackles",
  "kick", "kicked", "kicking", "stadium", "stadiums", "fans", "season", "coach", "cup",
  "dribble", NULL };
static const char *const music[] = {
  "music", "musical", "musician", "musicians", "song", "songs", "singer", "singers",
  "singing", "sang", "melody", "melodies", "chord", "chords", "guitar", "guitars", "piano",
  "pianist", "violin", "orchestra", "orchestras", "concert", "concerts", "rhythm",
  "harmony", "harmonies", "album", "albums", "composer", "composers", "symphony", "tune",
  "tunes", NULL };
static const char *const medicine[] = {
  "doctor", "doctors", "patient", "patients", "hospital", "hospitals", "nurse", "nurses",
  "disease", "diseases", "symptom", "symptoms", "diagnosis", "treatment", "treatments",
  "therapy", "surgery", "surgeon", "surgeons", "medicine", "medicines", "drug", "drugs",
  "dose", "doses", "vaccine", "vaccines", "infection", "infections", "clinic", "clinics",
  "illness", NULL };
static const char *const finance[] = {
  "bank", "banks", "banking", "loan", "loans", "interest", "credit", "debt", "debts",
  "investor", "investors", "investment", "investments", "stock", "stocks", "bond", "bonds",
  "market", "markets", "fund", "funds", "dividend", "dividends", "equity", "trading",
  "traded", "broker", "brokers", "portfolio", "capital", "currency", "inflation", NULL };
static const char *const railways[] = {
  "train", "trains", "railway", "railways", "locomotive", "locomotives", "station",
  "stations", "platform", "platforms", "track", "tracks", "rail", "rails", "carriage",
  "carriages", "wagon", "wagons", "signal", "signals", "timetable", "passenger",
  "passengers", "freight", "engine", "engines", "steam", "diesel", "junction", "conductor",
  NULL };
static const char *const chess[] = {
  "chess", "pawn", "pawns", "knight", "knights", "bishop", "bishops", "rook", "rooks",
  "queen", "king", "kings", "checkmate", "gambit", "gambits", "opening", "openings",
  "endgame", "endgames", "castling", "grandmaster", "grandmasters", "tournament",
  "tournaments", "move", "moves", "board", "boards", "stalemate", "sacrifice", NULL };
static const char *const photography[] = {
  "photo", "photos", "photograph", "photographs", "photographer", "photographers",
  "photography", "camera", "cameras", "lens", "lenses", "shutter", "aperture", "exposure",
  "exposures", "focus", "focusing", "tripod", "flash", "portrait", "portraits", "landscape",
  "pixel", "pixels", "zoom", "film", "films", "print", "prints", NULL };
static const char *const mountaineering[] = {
  "climb", "climbing", "climbed", "climber", "climbers", "mountain", "mountains", "summit",
  "summits", "peak", "peaks", "ridge", "ridges", "rope", "ropes", "glacier", "glaciers",
  "crampon", "crampons", "ice", "axe", "altitude", "expedition", "expeditions", "base",
  "camp", "camps", "avalanche", "ascent", "descent", NULL };
static const char *const aviation[] = {
  "plane", "planes", "aircraft", "airplane", "pilot", "pilots", "flight", "flights",
  "flying", "flew", "airport", "airports", "runway", "runways", "wing", "wings", "cockpit",
  "jet", "jets", "propeller", "takeoff", "landing", "landed", "altitude", "glider",
  "gliders", "hangar", "aviation", NULL };
static const char *const architecture[] = {
  "building", "buildings", "architect", "architects", "architecture", "facade", "facades",
  "column", "columns", "arch", "arches", "dome", "domes", "tower", "towers", "brick",
  "bricks", "concrete", "storey", "storeys", "roof", "roofs", "window", "windows",
  "cathedral", "cathedrals", "bridge", "bridges", "design", "designed", NULL };
static const char *const beekeeping[] = {
  "bee", "bees", "beekeeper", "beekeepers", "beekeeping", "hive", "hives", "honey",
  "honeycomb", "comb", "combs", "nectar", "pollen", "pollination", "queen", "drone",
  "drones", "swarm", "swarms", "colony", "colonies", "wax", "apiary", "sting", "stings",
  "frames", "smoker", "larvae", NULL };

static const char *const *const topics[TW_TOPIC_MAX] = {
  sailing, fishing, gardening, cooking, astronomy, football, music, medicine, finance,
  railways, chess, photography, mountaineering, aviation, architecture, beekeeping,
};

static const char *const names[TW_TOPIC_MAX] = {
  "sailing", "fishing", "gardening", "cooking", "astronomy", "football", "music",
  "medicine", "finance", "railways", "chess", "photography", "mountaineering", "aviation",
  "architecture", "beekeeping",
};

/* Common English words, stop words among them, as most of any page is. */
static const char *const general[] = {
  "the", "of", "and", "to", "a", "in", "is", "it", "that", "for", "on", "with", "as",
  "was", "at", "by", "be", "this", "have", "from", "or", "one", "had", "not", "but",
  "what", "all", "were", "when", "we", "there", "can", "an", "your", "which", "their",
  "said", "if", "do", "will", "each", "about", "how", "up", "out", "them", "then", "she",
  "many", "some", "so", "these", "would", "other", "into", "has", "more", "her", "two",
  "like", "him", "see", "time", "could", "no", "make", "than", "first", "been", "its",
  "who", "now", "people", "my", "made", "over", "did", "down", "only", "way", "find", "use",
  "may", "water", "long", "little", "very", "after", "words", "called", "just", "where",
  "most", "know", "get", "through", "back", "much", "before", "go", "good", "new", "write",
  "our", "used", "me", "man", "too", "any", "day", "same", "right", "look", "think",
  "also", "around", "another", "came", "come", "work", "three", "word", "must", "because",
  "does", "part", "even", "place", "well", "such", "here", "take", "why", "things", "help",
  "put", "years", "different", "away", "again", "off", "went", "old", "number", "great",
  "tell", "men", "say", "small", "every", "found", "still", "between", "name", "should",
  "home", "big", "give", "air", "line", "set", "own", "under", "read", "last", "never",
  "us", "left", "end", "along", "while", "might", "next", "sound", "below", "saw",
  "something", "thought", "both", "few", "those", "always", "looked", "show", "large",
  "often", "together", "asked", "house", "world", "going", "want", "school", "important",
  "until", "form", "food", "keep", "children", "feet", "land", "side", "without", "once",
  "life", "enough", "took", "sometimes", "four", "head", "above", "kind", "began",
  "almost", "live", "page", "got", "earth", "need", "far", "hand", "high", "year",
  "mother", "light", "parts", "country", "father", "let", "night", "following",
  "picture", "being", "study", "second", "eyes", "soon", "times", "story", "since",
  "white", "days", "ever", "paper", "hard", "near", "better", "best", "across", "during",
  "today", "others", "however", "sure", "means", "knew", "try", "told", "young", "miles",
  "sun", "ways", "thing", "whole", "hear", "example", "heard", "several", "change",
  "answer", "room", "sea", "against", "top", "turned", "learn", "point", "city", "play",
  "toward", "five", "using", "usually", NULL };

/* What a link says when it does not name its target. */
static const char *const generic[] = {
  "read more", "see also", "this page", "next", "details", "more", "here", "continue",
  "related", "previous", "link", "more on this", NULL };

static size_t count(const char *const *v)
{
  size_t n = 0;
  while(v[n])
    n++;
  return n;
}

void tw_topic_words(size_t topic, struct tw_words *out)
{
  const char *const *v = topics[topic % TW_TOPIC_MAX];
  out->v = v;
  out->n = count(v);
}

void tw_topic_general(struct tw_words *out)
{
  out->v = general;
  out->n = count(general);
}

void tw_topic_generic(struct tw_words *out)
{
  out->v = generic;
  out->n = count(generic);
}

const char *tw_topic_name(size_t topic)
{
  return names[topic % TW_TOPIC_MAX];
}
