"""Decoding state through Python: reset, state_length and capacity, and generate against
the NumPy reference of tools/make_toy_decoder.py (tests/data/decoder) and the CLI."""

import json

import numpy as np
import pytest

import switchyard


@pytest.fixture()
def decoder(root):
    return switchyard.Session(root / "tests/data/decoder/model.json", device="cpu")


def expected(root, name):
    text = (root / "tests/data/decoder" / name).read_text().strip()
    return [int(t) for t in text.split(",")]


def test_greedy_matches_numpy_reference(root, decoder):
    assert decoder.has_state and decoder.state_capacity == 32
    assert decoder.generate([1, 2, 3], 12) == expected(root, "greedy_1_2_3.txt")
    assert decoder.state_length == 3 + 12 - 1
    # generate starts a new sequence each time
    assert decoder.generate([1, 2, 3], 5) == expected(root, "greedy_1_2_3.txt")[:5]


def test_seeded_top_k_matches_reference_and_cli(root, decoder, cli):
    tokens, stats = decoder.generate([1, 2, 3], 12, sample="top-k", top_k=4, temperature=0.8,
                                     seed=7, return_stats=True)
    assert tokens == expected(root, "top_k4_t0.8_seed7_1_2_3.txt")
    assert stats["prompt_tokens"] == 3 and stats["device"] == "cpu:0"
    for method, extra in (("temperature", []), ("top-p", ["--top-p", "0.9"]),
                          ("min-p", ["--min-p", "0.1"])):
        code, out, _ = cli("generate", root / "tests/data/decoder/model.json", "--device", "cpu",
                           "--prompt", "4,5", "--max-new-tokens", "10", "--sample", method,
                           "--seed", "11", *extra, "--json")
        assert code == 0
        kwargs = {"top_p": 0.9} if method == "top-p" else {"min_p": 0.1} if method == "min-p" \
            else {}
        assert decoder.generate([4, 5], 10, sample=method, seed=11, **kwargs) == \
            json.loads(out)["tokens"], method


def test_generate_stops_at_the_models_end_token(root, tmp_path, cli):
    """An end token (the model's EOS id, state.end_tokens) ends generation after it is
    picked, as the CLI's generate does; ignore_eos goes on."""
    greedy = expected(root, "greedy_1_2_3.txt")
    text = (root / "tests/data/decoder/model.json").read_text()
    assert '\n "state": {\n' in text
    model = tmp_path / "eos.json"
    model.write_text(text.replace('\n "state": {\n', '\n "state": {"end_tokens": [%d],\n' %
                                  greedy[2], 1))
    session = switchyard.Session(model, device="cpu")
    tokens, stats = session.generate([1, 2, 3], 12, return_stats=True)
    assert tokens == greedy[:greedy.index(greedy[2]) + 1]
    assert stats["stopped"] == "end_token"
    code, out, _ = cli("generate", model, "--prompt", "1,2,3", "--max-new-tokens", "12", "--json")
    assert code == 0 and json.loads(out)["tokens"] == tokens
    tokens, stats = session.generate([1, 2, 3], 12, ignore_eos=True, return_stats=True)
    assert tokens == greedy and stats["stopped"] == "max_new_tokens"


def test_a_batch_of_prompts(root, tmp_path, cli):
    """The toy decoder with a batch of 2 (its [1, ...] values made [2, ...]): a list of
    prompts gives each prompt's own tokens, as the CLI's repeated --prompt does."""
    graph = json.loads((root / "tests/data/decoder/model.json").read_text())
    for value in graph["values"]:
        shape = value["shape"]
        if len(shape) >= 2 and shape[0] == 1 and (len(shape) == 3 or value["name"] == "input_ids"):
            shape[0] = 2
    model = tmp_path / "batch2.json"
    model.write_text(json.dumps(graph))
    session = switchyard.Session(model, device="cpu")
    rows, stats = session.generate([[1, 2, 3], [4, 5, 6]], 12, return_stats=True)
    single = switchyard.Session(root / "tests/data/decoder/model.json", device="cpu")
    assert rows == [single.generate([1, 2, 3], 12), single.generate([4, 5, 6], 12)]
    assert rows[0] == expected(root, "greedy_1_2_3.txt") and stats["sequences"] == rows
    code, out, _ = cli("generate", model, "--prompt", "1,2,3", "--prompt", "4,5,6",
                       "--max-new-tokens", "12", "--json")
    assert code == 0 and json.loads(out)["sequences"] == rows
    with pytest.raises(switchyard.InvalidArgumentError, match="different lengths"):
        session.generate([[1, 2, 3], [4]], 4)


def test_text_in_text_out(root, tmp_path):
    """generate(text=...) through Hugging Face's tokenizers and the model's tokenizer.json
    (STEM.tokenizer.json beside it): a word-level vocabulary t0..t15 written here, so the
    text "t1 t2 t3" is the prompt 1,2,3 and the answer is the NumPy reference's tokens."""
    tokenizers = pytest.importorskip("tokenizers")
    vocab = {"t%d" % i: i for i in range(16)}
    codec = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab=vocab, unk_token="t0"))
    codec.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    model = tmp_path / "toy.json"
    model.write_text((root / "tests/data/decoder/model.json").read_text())
    codec.save(str(tmp_path / "toy.tokenizer.json"))
    session = switchyard.Session(model, device="cpu")
    assert session.tokenizer_path() == str(tmp_path / "toy.tokenizer.json")
    greedy = expected(root, "greedy_1_2_3.txt")
    assert session.generate(text="t1 t2 t3", max_new_tokens=12) == \
        " ".join("t%d" % t for t in greedy)
    assert session.generate(text=["t1 t2 t3"], max_new_tokens=4) == \
        [" ".join("t%d" % t for t in greedy[:4])]
    pieces = list(session.stream(text="t1 t2 t3", max_new_tokens=12))
    assert len(pieces) == 12 and "".join(pieces) == " ".join("t%d" % t for t in greedy)
    with pytest.raises(switchyard.InvalidArgumentError, match="either prompt"):
        session.generate([1, 2], text="t1")
    (tmp_path / "toy.tokenizer.json").unlink()
    with pytest.raises(switchyard.InvalidArgumentError, match="has no tokenizer.json"):
        session.generate(text="t1 t2")
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(switchyard.InvalidArgumentError, match="not a tokenizer.json"):
        session.generate(text="t1 t2", tokenizer=tmp_path / "bad.json")


def test_stream_yields_generates_tokens_one_by_one(root, decoder, tmp_path):
    greedy = expected(root, "greedy_1_2_3.txt")
    stream = decoder.stream([1, 2, 3], 12)
    first = next(stream)
    assert first == greedy[0]
    assert [first] + list(stream) == greedy
    assert list(decoder.stream([1, 2, 3], 12, sample="top-k", top_k=4, temperature=0.8,
                               seed=7)) == expected(root, "top_k4_t0.8_seed7_1_2_3.txt")
    # An end token ends the stream after it.
    text = (root / "tests/data/decoder/model.json").read_text()
    model = tmp_path / "eos.json"
    model.write_text(text.replace('\n "state": {\n', '\n "state": {"end_tokens": [%d],\n' %
                                  greedy[2], 1))
    eos = switchyard.Session(model, device="cpu")
    assert list(eos.stream([1, 2, 3], 12)) == greedy[:3]
    with pytest.raises(switchyard.InvalidArgumentError, match="outside the vocabulary"):
        list(decoder.stream([1, 99], 4))


def test_module_level_generate(root):
    assert switchyard.generate(root / "tests/data/decoder/model.json", [1, 2, 3], 4,
                               device="cpu-ref") == expected(root, "greedy_1_2_3.txt")[:4]


def test_run_and_reset_by_hand(root, decoder):
    assert decoder.input_names == ["input_ids"]
    first = decoder.run({"input_ids": np.array([[1, 2, 3]], np.int64)})["logits"]
    assert decoder.state_length == 3
    token = int(np.argmax(first[0, -1]))
    assert token == expected(root, "greedy_1_2_3.txt")[0]
    decoder.run({"input_ids": np.array([[token]], np.int64)})
    assert decoder.state_length == 4
    decoder.reset()
    assert decoder.state_length == 0
    again = decoder.run({"input_ids": np.array([[1, 2, 3]], np.int64)})["logits"]
    np.testing.assert_array_equal(first, again)


def test_decoding_errors(root, decoder, cli):
    with pytest.raises(switchyard.Error, match="past its capacity of 32"):
        decoder.run({"input_ids": np.zeros((1, 33), np.int64)})
    with pytest.raises(switchyard.Error, match="need 42 positions, but the model's state holds 32"):
        decoder.generate([1, 2, 3], 40)
    code, _, err = cli("generate", root / "tests/data/decoder/model.json", "--device", "cpu",
                       "--prompt", "1,99")
    assert code == 1
    with pytest.raises(switchyard.Error) as raised:
        decoder.generate([1, 99])
    assert "switchyard generate: " + str(raised.value) == err.strip().splitlines()[-1]
    with pytest.raises(ValueError, match="the sampler's options"):
        decoder.generate([1], 2, sample="top-p", top_p=3.0)
    with pytest.raises(ValueError, match="prompt is empty"):
        decoder.generate([], 2)
    mlp = switchyard.Session(root / "examples/mlp", "cpu")
    with pytest.raises(switchyard.Error, match="keeps no decoding state"):
        mlp.generate([1])
