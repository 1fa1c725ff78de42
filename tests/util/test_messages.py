import pytest

from dpcda.util.checks import CHECK_CODES, CheckError, check_choice, check_float, check_int, check_sigmas
from dpcda.util.messages import UNCODED, problem_of, range_words, unique_problems
from dpcda.privacy import PrivacyParams


def _problem(fn, *a, **kw):
    with pytest.raises(ValueError) as e:
        fn(*a, **kw)
    return problem_of(e.value)


def test_every_check_carries_a_code_and_keeps_its_precise_message():
    p = _problem(check_int, "l", 0, 1, 5421, " (the smallest class)")
    assert p.code == "int_range" and p.code in CHECK_CODES
    assert p.plain == ("The order of mixture l must be a whole number from 1 to 5,421 "
                       "(the smallest class); 0 is not.")
    assert p.precise == "l must be an integer in [1, 5421] (the smallest class), got l=0"


def test_plain_words_for_intervals_choices_and_sigma_pairs():
    p = _problem(check_float, "ratio", 0.0, lo=0.0, lo_open=True)
    assert p.code == "number_range" and p.plain.startswith("The noise ratio σ_y / σ_x must be "
                                                           "a number above 0")
    assert "got" not in p.plain and "inf" not in p.plain
    p = _problem(check_float, "delta", 2.0, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    assert p.plain.startswith("δ must be a number between 0 and 1;")
    p = _problem(check_choice, "accountant", "nope", ["paper", "class-aware"])
    assert p.code == "choice" and "paper, class-aware" in p.plain
    p = _problem(check_sigmas, 0.0, 0.5)
    assert p.code == "sigma_pair" and "Both noise scales" in p.plain


def test_library_errors_reach_the_page_with_their_code():
    # PrivacyParams validates with the checks: the code survives to the page.
    p = _problem(PrivacyParams, l=0, sigma_x=0.5, sigma_y=0.5, c=1.0, T=100, n=100, delta=1e-5)
    assert p.code == "int_range" and p.name == "l"


def test_uncoded_errors_keep_their_text_and_repeats_are_dropped():
    p = problem_of(ValueError("something odd"))
    assert p.code == UNCODED and p.plain == "Something odd"
    q = problem_of(CheckError("x", code="int_range", name="T", value=0, lo=1))
    assert [x.plain for x in unique_problems([p, q, p])] == [p.plain, q.plain]


def test_range_words():
    assert range_words(1, 10) == "from 1 to 10"
    assert range_words(0, 1, True, False) == "above 0 and at most 1"
    assert range_words(None, 5, hi_open=True) == "below 5"
    assert range_words() == "that is finite"


def test_a_typed_value_is_quoted_as_typed():
    from dpcda.dashboard.inputs import parse_int_text

    p = _problem(parse_int_text, "1e308", name="T", lo=1, hi=10**9)
    assert p.plain.endswith("from 1 to 1,000,000,000; 1e308 is not.")
    assert p.precise == "T must be an integer in [1, 1000000000], got T='1e308'"
    assert problem_of(CheckError("x", code="int_range", name="n", value=10**20, lo=1)
                      ).plain.endswith("1e+20 is not.")


def test_warnings_are_coded_values_with_plain_words():
    import pickle

    from dpcda.util.checks import Notice
    from dpcda.privacy import compute_epsilon

    p = PrivacyParams(l=4, sigma_x=0.5, sigma_y=0.5, c=1.0, T=1000, n=1000, delta=0.01)
    w = compute_epsilon(p, accountant="paper").warnings
    assert [x.code for x in w] == ["delta_not_below_1_over_n"]
    assert isinstance(w[0], str) and "delta=0.01 is not below 1/N" in w[0]   # still the text
    plain = problem_of(w[0]).plain
    assert plain == ("δ = 0.01 is too large for 1,000 records: publishing one record at random "
                     "would meet it. Choose δ below 1/N = 0.001.")
    back = pickle.loads(pickle.dumps(w[0]))
    assert back == w[0] and back.code == w[0].code and back.fields == {"delta": 0.01, "n": 1000}
    p0 = PrivacyParams(l=4, sigma_x=0.0, sigma_y=0.0, c=1.0, T=1000, n=1000, delta=1e-5)
    assert [x.code for x in compute_epsilon(p0, accountant="paper").warnings] == ["non_private"]
    assert problem_of(Notice("odd", "unknown-code")).code == UNCODED


def test_t_below_the_number_of_classes_is_coded():
    p = _problem(PrivacyParams, l=1, sigma_x=0.5, sigma_y=0.5, T=2, class_counts=(5, 5, 5),
                 delta=1e-5)
    assert p.code == "int_range" and p.name == "T"
    assert p.plain.startswith("The number of synthetic samples T must be a whole number of at "
                              "least 3 (the number of classes K")


def test_a_typed_dataset_size_says_what_shape_is_expected():
    from dpcda.dashboard.inputs import parse_counts

    p = _problem(parse_counts, "6000, six thousand")
    assert p.plain == ("The dataset size must be N (one whole number) or the class counts "
                       "separated by commas, like 6000, 6000, 5000; '6000, six thousand' is not.")
    assert "class counts" in p.precise


@pytest.mark.parametrize("text, hidden", [
    ("No such file or directory: '/work/x/dpcda-home/jobs.sqlite3'", "'/work/x/dpcda-home/jobs.sqlite3'"),
    ("see ~/.dpcda/worker.log for details", "~/.dpcda/worker.log"),
    ("[Errno 13] Permission denied: /tmp/home/jobs.sqlite3", "/tmp/home/jobs.sqlite3"),
    (r"put them in C:\data\mnist\raw first", r"C:\data\mnist\raw"),
])
def test_hide_paths_removes_server_paths(text, hidden):
    from dpcda.util.messages import hide_paths

    out = hide_paths(text)
    assert "(a file on the server)" in out
    assert hidden.strip("'") not in out and out.replace("(a file on the server)", "") == \
        text.replace(hidden.strip("'"), "")


@pytest.mark.parametrize("text", ["1/N of the data", "σ_y/σ_x = 1", "and/or", "http://example.org/a/b",
                                  "put it in `mnist/` inside your datasets folder", "ratio 3 / 4",
                                  "Put the files in <datasets folder>/mnist/ and set DPCDA_DATA_DIR"])
def test_hide_paths_keeps_what_is_not_a_path(text):
    from dpcda.util.messages import hide_paths

    assert hide_paths(text) == text
