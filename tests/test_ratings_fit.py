"""The fitted ratings (arena.ratings.fit, .pairs, .calibration) on result sets with known answers."""

from __future__ import annotations

import math
import random

import pytest

from arena.ratings.calibration import calibrate, is_held_out, synthetic_results
from arena.ratings.elo import Placement, expected_score
from arena.ratings.fit import (
    MIN_GAMES,
    PROVISIONAL_HALF_WIDTH,
    Z95,
    fit,
    mle_ratings,
    standings,
    win_table,
)
from arena.ratings.pairs import PairTable, Record, match_increments, player_id, split_player, table_of

THREE_TO_ONE = 400 * math.log10(3)  # 190.85 Elo: the gap at which the stronger scores 75%


def duels(a: str, b: str, wins: int, draws: int = 0, losses: int = 0) -> list[list[Placement]]:
    """Returns two-seat matches: ``a`` beats ``b`` ``wins`` times, draws ``draws``, loses ``losses``."""
    outcomes = [(1, 2)] * wins + [(1, 1)] * draws + [(2, 1)] * losses
    return [[Placement(a, ra), Placement(b, rb)] for ra, rb in outcomes]


def seeded_matches(count: int = 400, seed: int = 3) -> list[list[Placement]]:
    """Returns seeded 2- to 6-seat matches among eight players of spread strengths."""
    true = {f"bot{i}@v1": 1300 + 60 * i for i in range(8)}
    return [list(r.placements) for r in synthetic_results(true, count, seed)]


# -- known answers ---------------------------------------------------------------------------------


def test_two_bots_3_to_1_are_190_8_apart_by_maximum_likelihood() -> None:
    ratings = mle_ratings(table_of(duels("a", "b", 3, losses=1)))
    assert ratings["a"] - ratings["b"] == pytest.approx(THREE_TO_ONE, abs=1e-6)
    assert (ratings["a"] + ratings["b"]) / 2 == pytest.approx(1500)


def test_the_prior_pulls_a_3_to_1_pair_together_and_fades_with_many_games() -> None:
    """The MAP of 3:1 in four games is well short of 190.8 (145.8: the virtual draws weigh against
    only four real games); in 4,000 games at the same rate the prior's pull is below one Elo point."""
    few = fit(table_of(duels("a", "b", 3, losses=1))).ratings
    many = fit(table_of(duels("a", "b", 3000, losses=1000))).ratings
    assert 0 < few["a"] - few["b"] < THREE_TO_ONE - 40  # 145.8
    assert many["a"] - many["b"] == pytest.approx(THREE_TO_ONE, abs=1.0)


def test_the_map_fit_scores_every_player_its_expected_score() -> None:
    """The defining equations, checked independently of the solver: each player's actual points,
    plus one per player for its two virtual draws, equal its expected points against the real
    opponents and against the virtual 1500 player."""
    r = fit(table_of(duels("a", "b", 3, losses=1))).ratings
    for me, other, points in (("a", "b", 3.0), ("b", "a", 1.0)):
        expected = 4 * expected_score(r[me], r[other]) + 2 * expected_score(r[me], 1500)
        assert points + 1 == pytest.approx(expected, abs=1e-9)


def test_a_transitive_three_reproduces_odds_that_agree_with_the_model() -> None:
    """a beats b 3:1, b beats c 3:1, a beats c 9:1: odds that the model fits exactly, so the
    maximum likelihood puts them 190.8 points apart each; the MAP keeps the order."""
    matches = duels("a", "b", 3, losses=1) + duels("b", "c", 3, losses=1) + duels("a", "c", 9, losses=1)
    mle = mle_ratings(table_of(matches))
    assert mle["a"] - mle["b"] == pytest.approx(THREE_TO_ONE, abs=1e-6)
    assert mle["b"] - mle["c"] == pytest.approx(THREE_TO_ONE, abs=1e-6)
    rows = standings(fit(table_of(matches)))
    assert [row.bot for row in rows] == ["a", "b", "c"]


def test_a_draw_counts_as_half_a_win_for_each_side() -> None:
    drawn = fit(table_of(duels("a", "b", 0, draws=2) + duels("a", "c", 1, draws=2)))
    split = fit(table_of(duels("a", "b", 1, losses=1) + duels("a", "c", 2, losses=1)))
    assert drawn.ratings == pytest.approx(split.ratings, abs=1e-9)
    assert drawn.ratings["a"] > drawn.ratings["b"] > drawn.ratings["c"]


def test_ties_inside_a_multi_seat_match_are_draws_between_those_seats() -> None:
    table = table_of([[Placement("a", 1), Placement("b", 2), Placement("c", 2)]])
    assert table.record("b", "c") == Record(0, 1, 0)
    assert table.record("c", "a") == Record(0, 0, 1)
    ratings = fit(table).ratings
    assert ratings["b"] == pytest.approx(ratings["c"], abs=1e-9)


def test_a_bot_that_never_lost_has_a_finite_rating_and_an_open_interval() -> None:
    table = table_of(duels("champ", "a", 6) + duels("a", "b", 40, losses=40))
    with pytest.raises(ValueError, match="infinite"):
        mle_ratings(table)
    result = fit(table)
    low, high = result.interval("champ")
    assert math.isfinite(result.ratings["champ"])
    assert result.ratings["champ"] > result.ratings["a"] + 100
    assert high - low > 2 * PROVISIONAL_HALF_WIDTH
    assert [(row.bot, row.provisional) for row in standings(result)] == [
        ("champ", True),  # first by its rating, marked
        ("b", False),  # a lost six times to champ
        ("a", False),
    ]


# -- the fit depends on the results only ----------------------------------------------------------


def test_the_fit_does_not_depend_on_the_order_of_the_results() -> None:
    matches = seeded_matches()
    rng = random.Random(11)
    shuffled = sorted(matches, key=lambda _: rng.random())
    shuffled = [sorted(m, key=lambda _: rng.random()) for m in shuffled]  # seat order too
    assert shuffled != matches
    assert fit(table_of(shuffled)) == fit(table_of(matches))


def test_the_pair_table_fit_maximizes_the_posterior_of_the_full_list_of_matches() -> None:
    """Summed over the full list of pairwise results (not the table), each weighted by its match's
    ``match_weight`` (3 / (seats + 1); issue 37), the gradient of the log-posterior vanishes at the
    fitted ratings: the table loses nothing the fit needs."""
    matches = seeded_matches()
    result = fit(table_of(matches))
    gradient = dict.fromkeys(result.players, 0.0)
    for player, rating in result.ratings.items():
        gradient[player] += 1 - 2 * expected_score(rating, 1500)  # two virtual draws
    for match in matches:
        weight = 3 / (len(match) + 1)
        for a in match:
            for b in match:
                if a is not b:
                    score = 0.5 if a.rank == b.rank else float(a.rank < b.rank)
                    expected = expected_score(result.ratings[a.bot], result.ratings[b.bot])
                    gradient[a.bot] += weight * (score - expected)
    assert max(map(abs, gradient.values())) < 1e-6


def test_tables_built_apart_merge_and_round_trip_to_the_same_fit() -> None:
    matches = seeded_matches()
    first, second = table_of(matches[:150]), table_of(matches[150:])
    first.merge(second)
    assert first == table_of(matches)
    stored = PairTable.from_fields(first.to_fields())
    assert fit(stored) == fit(table_of(matches))


def test_the_stored_form_is_counters_one_match_increments_by_one() -> None:
    table = table_of(duels("greedy@abc", "random@def", 7, draws=1, losses=4))
    assert table.to_fields() == {
        "greedy@abc": "12",
        "random@def": "12",
        "greedy@abc>random@def": "7",
        "greedy@abc=random@def": "1",
        "random@def>greedy@abc": "4",
    }
    # Recording is adding each increment a match names (one per result, and from three seats the
    # weight each lacks: issue 37): the same table as adding the match.
    matches = seeded_matches()
    counters: dict[str, int] = {}
    for match in matches:
        for field, n in match_increments(match):
            counters[field] = counters.get(field, 0) + n
    assert PairTable.from_fields({k: str(v) for k, v in counters.items()}) == table_of(matches)
    with pytest.raises(ValueError, match="sorted"):
        PairTable.from_fields({"b=a": "1"})


def test_players_are_bot_versions_whatever_their_names() -> None:
    assert split_player(player_id("greedy", "0123456789ab")) == ("greedy", "0123456789ab")
    assert player_id("greedy") == "greedy" and split_player("greedy") == ("greedy", "")
    for bot, version in (("a|b>c=d", "v 1"), ("<script>x</script>", ""), ("a@b", "%41"), ("é", "v")):
        player = player_id(bot, version)
        assert split_player(player) == (bot, version)
        assert not {"@", ">", "=", " "} & set(player.replace("@", "", bool(version)))
    with pytest.raises(ValueError):
        player_id("", "v")


def test_a_player_holding_two_seats_is_refused() -> None:
    with pytest.raises(ValueError, match="two seats"):
        table_of([[Placement("a", 1), Placement("a", 2)]])


# -- what a reader sees ---------------------------------------------------------------------------


def test_los_and_standard_errors_match_the_two_player_information_matrix() -> None:
    """Recomputes by hand the 2x2 information (pairs plus virtual draws) at the fitted ratings; with
    two players, a rating's error relative to the pool's mean is half that of their difference."""
    result = fit(table_of(duels("a", "b", 12, draws=3, losses=5)))
    ra, rb = result.ratings["a"], result.ratings["b"]
    unit = 400 / math.log(10)

    def w(x: float, y: float) -> float:
        p = expected_score(x, y)
        return p * (1 - p)

    haa = 20 * w(ra, rb) + 2 * w(ra, 1500)
    hbb = 20 * w(ra, rb) + 2 * w(rb, 1500)
    hab = -20 * w(ra, rb)
    det = haa * hbb - hab * hab
    var_a, var_b, cov = hbb / det * unit**2, haa / det * unit**2, -hab / det * unit**2
    sd_diff = math.sqrt(var_a + var_b - 2 * cov)
    assert result.sd("a") == pytest.approx(sd_diff / 2, rel=1e-9)  # relative to the pool's mean
    los = 0.5 * (1 + math.erf((ra - rb) / sd_diff / math.sqrt(2)))
    assert result.los("a", "b") == pytest.approx(los, rel=1e-9)
    assert result.los("a", "b") + result.los("b", "a") == pytest.approx(1)
    assert 0.9 < result.los("a", "b") < 1


def test_equal_results_give_an_los_of_one_half() -> None:
    result = fit(table_of(duels("a", "b", 5, draws=2, losses=5)))
    assert result.los("a", "b") == pytest.approx(0.5)
    assert standings(result)[0].los_next == pytest.approx(0.5)


def test_provisional_bots_are_ranked_by_their_rating_among_the_others_and_marked() -> None:
    """The issue's case: a newcomer with two games, here two wins, is rated above an established bot
    that lost a quarter of its games; it is listed where its rating puts it, marked, not after every
    established bot (where a reader would take the established bot above it for the better one)."""
    matches = duels("strong", "middle", 30, losses=10) + duels("middle", "weak", 30, losses=10)
    matches += duels("strong", "weak", 35, losses=5) + duels("newcomer", "weak", 2)
    result = fit(table_of(matches))
    assert result.ratings["strong"] > result.ratings["newcomer"] > result.ratings["middle"]
    rows = standings(result)
    assert [(r.rank, r.bot, r.provisional) for r in rows] == [
        (1, "strong", False),
        (2, "newcomer", True),
        (3, "middle", False),
        (4, "weak", False),
    ]
    assert rows[1].games == 2 < MIN_GAMES
    assert rows[-1].los_next is None and rows[-1].los_next_established is None
    assert rows[0].to_json().keys() >= {"bot", "version", "elo", "low", "high", "games", "provisional"}


def test_each_row_also_compares_with_the_next_established_row_for_readers_who_hide_provisional_ones() -> None:
    """With the provisional rows hidden, strong's neighbour is middle: its LOS over the next shown row
    is its LOS over middle, not over the hidden newcomer."""
    matches = duels("strong", "middle", 30, losses=10) + duels("middle", "weak", 30, losses=10)
    matches += duels("strong", "weak", 35, losses=5) + duels("newcomer", "weak", 2)
    result = fit(table_of(matches))
    strong, newcomer, middle, _ = standings(result)
    assert strong.los_next == pytest.approx(result.los("strong", "newcomer"))
    assert strong.los_next_established == pytest.approx(result.los("strong", "middle"))
    assert strong.los_next < 0.9 < strong.los_next_established
    assert newcomer.los_next_established == newcomer.los_next
    assert newcomer.los_next == pytest.approx(result.los("newcomer", "middle"))
    assert middle.los_next_established == middle.los_next
    assert strong.to_json()["los_next_established"] == round(result.los("strong", "middle"), 3)


def test_standings_of_shown_players_compare_each_with_the_next_shown() -> None:
    matches = seeded_matches()
    result = fit(table_of(matches))
    shown = ["bot7@v1", "bot2@v1", "bot5@v1"]
    rows = standings(result, shown)
    assert [r.player for r in rows] == ["bot7@v1", "bot5@v1", "bot2@v1"]
    assert rows[0].los_next == pytest.approx(result.los("bot7@v1", "bot5@v1"))
    assert rows[0].low == pytest.approx(result.ratings["bot7@v1"] - Z95 * result.sd("bot7@v1"))


def test_the_win_table_gives_each_pair_its_expected_score() -> None:
    result = fit(table_of(duels("a", "b", 3000, losses=1000)))
    table = win_table(result)
    assert table["a"]["b"] == pytest.approx(0.75, abs=0.002)
    assert table["a"]["b"] + table["b"]["a"] == pytest.approx(1)
    assert "a" not in table["a"]


def test_fitted_ratings_recover_known_strengths() -> None:
    true = {f"bot{i}@v1": 1300 + 60 * i for i in range(8)}
    results = synthetic_results(true, 3000, seed=5)
    result = fit(table_of(r.placements for r in results))
    shift = sum(result.ratings.values()) / 8 - sum(true.values()) / 8
    for player, rating in true.items():
        assert result.ratings[player] - shift == pytest.approx(rating, abs=3 * result.sd(player))


# -- calibration ----------------------------------------------------------------------------------


def test_held_out_log_loss_of_the_fit_is_at_most_the_online_elos() -> None:
    """30 bots of known strengths (1200..1800), 3,000 matches of 2 to 6 seats: about 4,500 held-out
    pairwise results, enough that the difference is not the luck of the split."""
    rng = random.Random(1)
    true = {f"b{i:02d}": 1200 + rng.random() * 600 for i in range(30)}
    results = synthetic_results(true, 3000, seed=1)
    figures = calibrate(results)
    print(f"held-out log loss: fit {figures.fit_log_loss:.4f}, online Elo {figures.elo_log_loss:.4f}")
    assert figures.held_out_matches + figures.fitted_matches == len(results)
    assert figures.held_out_pairs > 4000
    assert figures.fit_log_loss <= figures.elo_log_loss
    assert figures.fit_log_loss < math.log(2)


def test_the_held_out_split_depends_on_the_match_id_only() -> None:
    ids = [f"m{i}" for i in range(1000)]
    held = [i for i in ids if is_held_out(i)]
    assert 150 < len(held) < 250
    assert [i for i in reversed(ids) if is_held_out(i)] == held[::-1]
