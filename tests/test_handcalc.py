import json
import math
from fractions import Fraction as F

import pytest
import torch
from rich.console import Console

from quizforge import handcalc
from quizforge.errors import InputError
from quizforge.handcalc import attention_steps, json_number, pe_vector, scale_text
from quizforge.render.handcalc import render_attention, render_pe

Q3 = "[[1,0],[0,1],[1,1]]"
V3 = "[[1,2],[3,4],[5,6]]"
V3_ROWS = [[1, 2], [3, 4], [5, 6]]
A = 1 / math.sqrt(2)  # the scale for d_k = 2


def softmax(xs):
    es = [math.exp(x) for x in xs]
    total = sum(es)
    return [e / total for e in es]


def times_v(weights, v):
    return [sum(w * v[j][c] for j, w in enumerate(weights)) for c in range(len(v[0]))]


def close(a, b, tol=1e-12):
    return all(math.isclose(x, y, rel_tol=tol, abs_tol=tol) for x, y in zip(a, b)) and len(a) == len(b)


def text_of(renderable, width=120):
    console = Console(record=True, width=width)
    console.print(renderable)
    return console.export_text()


# --------------------------------------------------------------------------------------- attention

def test_attention_by_hand_q_equals_k():
    s = attention_steps(Q3, Q3, V3)
    # QKᵀ by hand: q1·k = (1,0,1), q2·k = (0,1,1), q3·k = (1,1,2)
    assert s.scores == [[1, 0, 1], [0, 1, 1], [1, 1, 2]]
    assert all(type(x) is F for row in s.scores for x in row)
    assert s.scale == pytest.approx(A) and s.scale_text == "1/√2"
    assert s.scaled[2] == pytest.approx([A, A, 2 * A])
    assert s.masked == [[False] * 3] * 3

    expected_w = [softmax([A, 0, A]), softmax([0, A, A]), softmax([A, A, 2 * A])]
    # row 1 in closed form: e^a / (2e^a + 1) twice, 1 / (2e^a + 1) in the middle
    denom = 2 * math.exp(A) + 1
    assert close(expected_w[0], [math.exp(A) / denom, 1 / denom, math.exp(A) / denom])
    for got, want in zip(s.weights, expected_w):
        assert close(got, want)
    assert s.weights[0] == pytest.approx([0.40111209267979, 0.19777581464043, 0.40111209267979], abs=1e-12)

    for got, w in zip(s.output, expected_w):
        assert close(got, times_v(w, V3_ROWS))
    assert s.output[0] == pytest.approx([3.0, 4.0])  # symmetric weights on rows 1 and 3 average to (3, 4)

    # the shown intermediate steps agree with the reference's weights
    for i in range(3):
        m = max(s.scaled[i])
        assert s.row_max[i] == m
        assert close(s.exps[i], [math.exp(x - m) for x in s.scaled[i]])
        assert s.sums[i] == pytest.approx(sum(s.exps[i]))
        assert close([e / s.sums[i] for e in s.exps[i]], s.weights[i])


def test_attention_causal_square():
    s = attention_steps(Q3, Q3, V3, causal=True)
    assert s.masked == [[False, True, True], [False, False, True], [False, False, False]]
    assert s.weights[0] == [1.0, 0.0, 0.0]            # exactly: the first query sees only itself
    assert s.output[0] == [1.0, 2.0]                   # ... so it copies V's first row
    assert s.exps[0] == [1.0, 0.0, 0.0] and s.sums[0] == 1.0
    assert close(s.weights[1], softmax([0, A]) + [0.0])
    assert s.weights[1][2] == 0.0
    assert close(s.weights[2], softmax([A, A, 2 * A]))
    e = math.exp(-A)  # row 2 by hand: exp(0 - a) and exp(a - a) = 1
    assert close(s.weights[1][:2], [e / (1 + e), 1 / (1 + e)])
    assert close(s.output[1], [e / (1 + e) * 1 + 1 / (1 + e) * 3, e / (1 + e) * 2 + 1 / (1 + e) * 4])
    assert s.weights[1][:2] == pytest.approx([0.33023845, 0.66976155], abs=1e-8)


def test_attention_causal_fewer_queries_than_keys_uses_the_last_positions():
    # 2 queries over 3 keys: q1 is position 2 (sees k1, k2), q2 is position 3 (sees all)
    s = attention_steps("[[1,0],[0,1]]", Q3, V3, causal=True)
    assert s.offset == 1
    assert s.masked == [[False, False, True], [False, False, False]]
    assert close(s.weights[0], softmax([A, 0]) + [0.0])
    assert close(s.weights[1], softmax([0, A, A]))


def test_causal_with_more_queries_than_keys_is_an_error():
    with pytest.raises(InputError, match="Q has 3 rows but K has 2"):
        attention_steps(Q3, "[[1,0],[0,1]]", "[[1],[2]]", causal=True)


def test_exact_fraction_scores_and_scale_for_d_k_4():
    s = attention_steps("[[1/2, 1/3, 0, 0]]", "[[2/3, 3/4, 0, 0], [0, 0, 1, 1]]", "[[1],[-1]]")
    assert s.scores == [[F(7, 12), F(0)]]              # 1/2·2/3 + 1/3·3/4 = 1/3 + 1/4
    assert s.scale == 0.5 and s.scale_text == "1/√4 = 1/2"
    w = softmax([7 / 24, 0])
    assert close(s.weights[0], w)
    assert close(s.output[0], [w[0] - w[1]])
    assert s.to_json()["scores"] == [[7 / 12, 0]]


def test_accepts_nested_sequences_as_well_as_text():
    s = attention_steps([[1, 0.5]], [[F(2), -1]], [[3, 4]])
    assert s.scores == [[F(3, 2)]]
    assert s.weights == [[1.0]] and s.output == [[3.0, 4.0]]


def test_single_key_d_k_1():
    s = attention_steps("5", "[-3]", "[[7, 8, 9]]")
    assert s.scores == [[-15]] and s.scale == 1.0 and s.scale_text == "1/√1"
    assert s.weights == [[1.0]] and s.output == [[7.0, 8.0, 9.0]]


def test_large_scores_do_not_overflow():
    s = attention_steps("[[1000, 0], [0, 1000]]", "[[1000, 0], [0, 1000]]", "[[1],[2]]")
    assert s.weights[0] == pytest.approx([1.0, 0.0]) and s.weights[1] == pytest.approx([0.0, 1.0])
    assert all(math.isfinite(x) for row in s.exps for x in row)


@pytest.mark.parametrize(
    "q, k, v, kwargs, fragment",
    [
        ("[[1,0,1]]", "[[1,0]]", "[[1]]", {}, "Q has d_k=3 columns but K has 2"),
        (Q3, Q3, "[[1,2],[3,4]]", {}, "V has 2 rows but K has 3"),
        ("[[1,abc]]", Q3, V3, {}, "--q: 'abc' is not a number at position 5"),
        (Q3, "[[1,0],[1]]", V3, {}, "--k: row 2 has 1 entry, row 1 has 2"),
        (Q3, Q3, "", {}, "--v: empty input"),
        ([[1, float("nan")]], Q3, V3, {}, "--q: entry (1, 2) is nan"),
        ([[1, "x"]], Q3, V3, {}, "--q: entry (1, 2) is str"),
        ([], Q3, V3, {}, "--q: empty matrix"),
        (5, Q3, V3, {}, "--q: expected a matrix"),
        ([[1] * 17], [[1] * 17], [[1]], {}, "17 columns"),
    ],
)
def test_attention_bad_inputs(q, k, v, kwargs, fragment):
    with pytest.raises(InputError) as info:
        attention_steps(q, k, v, **kwargs)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_attention_json():
    s = attention_steps(Q3, Q3, V3, causal=True)
    data = s.to_json()
    assert set(data) == {"scores", "scaled", "weights", "output", "d_k", "causal"}
    assert data["d_k"] == 2 and data["causal"] is True
    assert data["scores"] == [[1, 0, 1], [0, 1, 1], [1, 1, 2]]
    assert all(type(x) is int for row in data["scores"] for x in row)
    assert data["scaled"][0] == [pytest.approx(A), None, None]
    assert data["scaled"][1][0] == 0 and data["scaled"][1][2] is None
    assert data["weights"][0] == [1, 0, 0]
    assert data["output"][0] == [1, 2]
    assert [len(r) for r in data["weights"]] == [3, 3, 3] and [len(r) for r in data["output"]] == [2, 2, 2]
    text = json.dumps(data, allow_nan=False)  # no NaN/Infinity anywhere
    assert json.loads(text) == data
    assert attention_steps(Q3, Q3, V3).to_json()["scaled"][0][1] == 0


def test_json_number():
    assert json_number(F(4, 2)) == 2 and type(json_number(F(4, 2))) is int
    assert json_number(F(1, 4)) == 0.25
    assert json_number(3.0) == 3 and type(json_number(3.0)) is int
    assert json_number(-0.0) == 0 and type(json_number(-0.0)) is int
    assert json_number(0.1) == 0.1


def test_scale_text():
    assert [scale_text(d) for d in (1, 2, 3, 4, 9, 64)] == [
        "1/√1", "1/√2", "1/√3", "1/√4 = 1/2", "1/√9 = 1/3", "1/√64 = 1/8"]


# --------------------------------------------------------------------------------------- positional

def test_pe_pos_1_d_model_4():
    pe = pe_vector(1, 4)
    assert close(pe.values, [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)], tol=1e-15)
    assert close(pe.angles, [1.0, 1.0, 0.01, 0.01], tol=1e-15)
    assert [d.j for d in pe.dims] == [0, 1, 2, 3]
    assert [d.i for d in pe.dims] == [0, 0, 1, 1]
    assert [d.exponent for d in pe.dims] == [0, 0, F(1, 2), F(1, 2)]
    assert [d.function for d in pe.dims] == ["sin", "cos", "sin", "cos"]
    data = pe.to_json()
    assert set(data) == {"pos", "d_model", "values", "angles"}
    assert data["pos"] == 1 and data["d_model"] == 4
    assert data["angles"] == [1, 1, 0.01, 0.01]
    assert data["values"] == pytest.approx([0.8414709848078965, 0.5403023058681398,
                                            0.009999833334166664, 0.9999500004166653], abs=1e-15)
    json.dumps(data, allow_nan=False)


def test_pe_pos_0_alternates_0_and_1():
    assert pe_vector(0, 6).values == [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]


def test_pe_odd_d_model_ends_with_a_sine():
    pe = pe_vector(7, 5)
    assert [d.function for d in pe.dims] == ["sin", "cos", "sin", "cos", "sin"]
    angles = [7 / 10000 ** (2 * i / 5) for i in (0, 0, 1, 1, 2)]
    assert close(pe.angles, angles)
    assert close(pe.values, [math.sin(angles[0]), math.cos(angles[1]), math.sin(angles[2]),
                             math.cos(angles[3]), math.sin(angles[4])])


def test_pe_d_model_512_matches_formula():
    pos, d = 37, 512
    pe = pe_vector(pos, d)
    for j in (0, 1, 100, 101, 510, 511):
        angle = pos / 10000 ** (2 * (j // 2) / d)
        want = math.sin(angle) if j % 2 == 0 else math.cos(angle)
        assert pe.values[j] == pytest.approx(want, abs=1e-12)


def test_pe_row_matches_the_reference_table():
    from quizforge.reference.positional import sinusoidal_table

    table = sinusoidal_table(124, 16, dtype=torch.float64)[123].tolist()
    assert close(pe_vector(123, 16).values, table, tol=1e-14)


def test_pe_largest_inputs_are_fast_and_right():
    pe = pe_vector(1_000_000, 8192)  # would be a 65 GB table if built whole
    assert len(pe.values) == 8192
    assert pe.values[0] == pytest.approx(math.sin(1_000_000.0), abs=1e-9)
    assert pe.values[1] == pytest.approx(math.cos(1_000_000.0), abs=1e-9)
    assert pe.values[-1] == pytest.approx(math.cos(1_000_000 / 10000 ** (8190 / 8192)), abs=1e-9)


@pytest.mark.parametrize(
    "pos, d_model, fragment",
    [
        (-1, 4, "--pos: -1 is out of range (allowed 0..1,000,000)"),
        (1_000_001, 4, "--pos: 1000001 is out of range"),
        (1, 0, "--d-model: 0 is out of range (allowed 1..8,192)"),
        (1, 8193, "--d-model: 8193 is out of range"),
        (1.5, 4, "--pos: expected a whole number"),
        (True, 4, "--pos: expected a whole number"),
        (1, "4", "--d-model: expected a whole number"),
    ],
)
def test_pe_bad_inputs(pos, d_model, fragment):
    with pytest.raises(InputError) as info:
        pe_vector(pos, d_model)
    assert fragment in str(info.value)


# --------------------------------------------------------------------------------------- rendering

def test_render_attention_causal_worked_solution():
    out = text_of(render_attention(attention_steps(Q3, Q3, V3, causal=True)))
    for fragment in [
        "QKᵀ", "1·1 + 0·0 = 1", "1·1 + 1·1 = 2",           # step 1 written out
        "1/√2", "0.7071", "1.4142",                         # step 2
        "Causal mask", "masked", "−∞",                      # step 3
        "exp(0.0000 − 0.7071) = 0.4931", "sum = 1.4931", "0.3302", "0.6698",   # step 4
        "0.2483", "0.5035",
        "0.3302·1 + 0.6698·3 + 0.0000·5 = 2.3395", "3.3395", "3.5105", "4.5105",  # step 5
        "Step 1", "Step 2", "Step 3", "Step 4", "Step 5",
    ]:
        assert fragment in out, fragment
    assert "Step 6" not in out


def test_render_attention_not_causal_numbers_steps_without_a_mask():
    out = text_of(render_attention(attention_steps(Q3, Q3, V3)))
    assert "Step 4  Output" in out and "Step 5" not in out and "−∞" not in out
    assert "0.4011" in out and "0.1978" in out and "3.0000" in out


def test_render_attention_compact_for_larger_matrices():
    ones = "[" + ",".join(["[" + ",".join(["1"] * 6) + "]"] * 5) + "]"
    out = text_of(render_attention(attention_steps(ones, ones, ones)))
    assert "·1 + " not in out                      # no written-out dot products at this size
    assert "exp terms: 1.0000" in out and "0.2000" in out and "6" in out


def test_render_attention_negative_and_fraction_factors():
    out = text_of(render_attention(attention_steps("[[1/3, -2]]", "[[3, 0.5]]", "[[1]]")))
    assert "1/3·3 + (-2)·0.5 = 0" in out


def test_render_negative_row_max_is_parenthesised():
    out = text_of(render_attention(attention_steps("[[-1], [0]]", "[[5], [8]]", "[[1], [2]]", causal=True)))
    assert "exp(-5.0000 − (-5.0000)) = 1.0000" in out   # q1 sees only k1 under the mask
    assert "k2: masked → exp(−∞) = 0" in out


def test_render_pe():
    out = text_of(render_pe(pe_vector(1, 4)))
    assert "PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(" in out
    for fragment in ["j", "function", "angle", "value", "sin(1.0000)", "cos(0.0100)", "0.8415", "0.5403",
                     "2/4", "1.0000"]:
        assert fragment in out, fragment


def test_render_pe_truncates_long_vectors():
    out = text_of(render_pe(pe_vector(3, 512), max_rows=8))
    assert "(504 more coordinates)" in out
    assert "511" in out and "\n255 " not in out
    odd = text_of(render_pe(pe_vector(3, 9)))
    assert "d_model is odd" in odd
