"""The profile-guided build's training run (``solver/_training.py``). The build falls back to an
unprofiled engine when the training fails, so a training broken by an API change would only
show as a slower engine: this test makes it show here."""
from solver import _training


def test_training_runs_its_questions_to_the_end() -> None:
    answered, cut_short = _training.main()
    # a profile of searches stopped by the node limit would train the wrong paths
    assert answered >= 80 and cut_short <= 1
