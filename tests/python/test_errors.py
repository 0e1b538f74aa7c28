"""Bad input raises the exception of the command line's exit status with the command line's
one-line message: the same words as the first line `tessel` prints on stderr."""

import os

import pytest

import tessel

BAD = ["dup_id.json", "cycle.json", "device_range.json", "span_zero.json", "truncated_p.json",
       "wrong_format.json", "edge_unknown.json", "unknown_kind.json"]


@pytest.mark.parametrize("name", BAD)
def test_bad_placement_file(cli, tests_dir, name):
    path = os.path.join(tests_dir, "bad", name)
    status, line = cli.first_error_line("bound", path, "-n", 4)
    with pytest.raises(tessel.TesselError) as exc:
        tessel.Placement.from_file(path)
    assert exc.value.status == status == 2
    assert isinstance(exc.value, tessel.InvalidInput) and isinstance(exc.value, ValueError)
    assert str(exc.value) == line.replace("tessel bound:", "tessel placement:", 1)
    with pytest.raises(tessel.InvalidInput) as exc:
        tessel.Placement.from_file(path).bound(4)
    assert str(exc.value) == line.replace("tessel bound:", "tessel placement:", 1)


def test_bad_placement_dict_names_its_place():
    with pytest.raises(tessel.InvalidInput) as exc:
        tessel.Placement("mine", ndevs=2, blocks=[("F0", "forward", 1, 1, [0]),
                                                  ("F1", "forward", 0, 1, [1])],
                         edges=[("F0", "F1")])
    assert str(exc.value).startswith("tessel placement: mine: block 'F1': ")
    assert "'span' must be between 1" in str(exc.value)
    with pytest.raises(tessel.InvalidInput, match="unknown block 'F9'"):
        tessel.Placement("mine", ndevs=1, blocks=[("F0", "forward", 1, 1, [0])],
                         edges=[("F0", "F9")])


def test_unknown_builtin(cli):
    status, line = cli.first_error_line("search", "--placement", "nope", "--ndevs", 4,
                                        "--memory", 4)
    with pytest.raises(tessel.InvalidInput) as exc:
        tessel.Placement.from_builtin("nope", 4)
    assert exc.value.status == status
    assert str(exc.value) == line.replace("tessel search:", "tessel placement:")


@pytest.mark.parametrize("kw,args", [
    ({"n": 0}, ["--micro-batches", 0]),
    ({"method": "best"}, ["--method", "best"]),
    ({"time_limit": -1}, ["--time-limit", -1]),
    ({"per_period": 99}, ["--per-period", 99]),
    ({"seed": 0}, ["--seed", 0]),
    ({"gap": 11}, ["--gap", 11]),
    ({"candidates": "memlist,nope"}, ["--candidates", "memlist,nope"]),
])
def test_search_keywords_out_of_range(cli, kw, args):
    # the same refusal as the command line's, the option named as each names it: the keyword
    # in Python, the flag on the command line (both from the search's option table)
    status, line = cli.first_error_line("search", "--placement", "vshape", "--ndevs", 4,
                                        "--memory", 4, *args)
    with pytest.raises(tessel.InvalidInput) as exc:
        tessel.search(tessel.Placement.from_builtin("vshape", 4), memory=4, **kw)
    assert exc.value.status == status == 2
    (name,) = kw
    assert str(exc.value) == line.replace(args[0], name, 1)


def test_no_schedule_within_memory(cli):
    args = ("--placement", "vshape", "--ndevs", 4, "--memory", 0, "--method", "lazy")
    status, line = cli.first_error_line("search", *args)
    with pytest.raises(tessel.NoAnswer) as exc:
        tessel.search(tessel.Placement.from_builtin("vshape", 4), memory=0, method="lazy")
    assert exc.value.status == status == 1
    assert str(exc.value) == line


def test_invalid_schedule(cli, tests_dir):
    path = os.path.join(tests_dir, "bad", "overlap.json")
    status, line = cli.first_error_line("validate", path)
    with pytest.raises(tessel.NoAnswer) as exc:
        tessel.Schedule.load(path).validate()
    assert exc.value.status == status == 1
    assert str(exc.value) == line


def test_baseline_that_does_not_fit(cli):
    status, line = cli.first_error_line("baseline", "chimera", "--placement", "vshape",
                                        "--ndevs", 4)
    with pytest.raises(tessel.TesselError) as exc:
        tessel.baseline("chimera", tessel.Placement.from_builtin("vshape", 4))
    assert exc.value.status == status
    assert str(exc.value) == line


def test_missing_model(cli):
    status, line = cli.first_error_line("model", "no-such-model")
    with pytest.raises(tessel.TesselError) as exc:
        tessel.model("no-such-model")
    assert exc.value.status == status
    assert str(exc.value) == line


def test_wrong_types_never_crash():
    p = tessel.Placement.from_builtin("vshape", 4)
    with pytest.raises(tessel.InvalidInput, match="memory expects a capacity, none or a list"):
        tessel.search(p, memory="four")
    with pytest.raises(tessel.InvalidInput, match="n expects an integer"):
        tessel.search(p, memory=4, n=1.5)
    with pytest.raises(tessel.InvalidInput, match="memory lists 2 capacities for 4 devices"):
        tessel.search(p, memory=[4, 4])
    with pytest.raises(TypeError):
        tessel.search({"not": "a placement"}, memory=4)
    with pytest.raises(tessel.InvalidInput):
        tessel.Schedule("{not json").validate()


def test_a_message_stays_one_line():
    # a value quoted in the message has its control characters written \xNN, as the CLI does
    with pytest.raises(tessel.InvalidInput) as exc:
        tessel.search(tessel.Placement.from_builtin("vshape", 4), memory=4, method="la\nzy")
    assert "\n" not in str(exc.value)
    assert "unknown method 'la\\x0azy'" in str(exc.value)


def test_what_the_library_cannot_carry_names_the_keyword():
    # issue 43: these named the library's internal JSON (request:1:865), or raised AttributeError
    p = tessel.Placement.from_builtin("vshape", 4)
    with pytest.raises(tessel.InvalidInput, match=r"tessel search: n: 18446744073709551616 is out"):
        tessel.search(p, memory=4, n=2 ** 64)
    with pytest.raises(tessel.InvalidInput, match=r"tessel search: method: the text holds a NUL"):
        tessel.search(p, memory=4, method="la\0zy")
    with pytest.raises(tessel.InvalidInput, match=r"memory\[1\]: .* out of range"):
        tessel.search(p, memory=[4, 2 ** 70, 4, 4])
    with pytest.raises(TypeError, match="cancel: expected a tessel.CancelToken, got int"):
        tessel.search(p, memory=4, cancel=5)
    with pytest.raises(TypeError, match="progress: expected a function"):
        tessel.search(p, memory=4, progress=3)


def test_a_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        tessel.Placement.from_file(str(tmp_path / "nope.json"))
    with pytest.raises(FileNotFoundError):
        tessel.Schedule.load(str(tmp_path / "nope.json"))


def test_export_writes_only_what_it_can_vouch_for(tests_dir, tmp_path):
    # issue 43: Python's export is the command line's operation: an invalid schedule is refused
    # (nothing written), and n below the file's micro-batches exports the first n
    bad = tessel.Schedule.load(os.path.join(tests_dir, "bad", "duplicate_instance.json"))
    out = tmp_path / "bad.csv"
    with pytest.raises(tessel.NoAnswer, match="invalid schedule, nothing written"):
        bad.to_pytorch_csv(str(out))
    assert not out.exists()
    s = tessel.baseline("1f1b", tessel.Placement.from_builtin("vshape_zb", 4), n=8)
    rows = s.to_pytorch_csv(n=4).split()
    assert sorted({int(a[2:]) for r in rows for a in r.split(",")}) == [0, 1, 2, 3]
