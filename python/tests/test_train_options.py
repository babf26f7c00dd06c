"""Model.train is `plastic train` through Python: the same defaults and the
same record. A run on a toy classifier with input_noise records it (one
with norm_penalty records that), stops early by the same rule as the
command line, and keeps the epoch of best
validation accuracy (ties: lowest validation loss); a resumed run refuses a
changed input_noise; an unknown option names the ones there are."""
import json
import os
import random
import sys
import tempfile

import plastic

SRC = os.environ["PLASTIC_SOURCE_DIR"]
path = os.path.join(SRC, "tests", "driver", "tune", "tiny_classifier.ode")


def write_toy_ts(file, samples=40, length=10, classes=3, channels=2):
    """A UEA .ts file whose class shifts the series' level."""
    rng = random.Random(5)
    with open(file, "w") as f:
        f.write(f"@problemName Toy\n@timeStamps false\n@missing false\n@univariate false\n"
                f"@dimensions {channels}\n@equalLength true\n@seriesLength {length}\n"
                f"@classLabel true {' '.join(f'c{c}' for c in range(classes))}\n@data\n")
        for s in range(samples):
            label = s % classes
            dims = [",".join(f"{label + rng.gauss(0, 0.5):.4f}" for _ in range(length))
                    for _ in range(channels)]
            f.write(":".join(dims) + f":c{label}\n")


def epochs_of(run):
    with open(os.path.join(run, "train.jsonl")) as f:
        return [json.loads(line) for line in f]


with tempfile.TemporaryDirectory() as tmp:
    data = os.path.join(tmp, "toy.ts")
    write_toy_ts(data)
    model = plastic.compile(path, set={"d_data": 2, "classes": 3}, dtype="float64", threads=1)
    out = os.path.join(tmp, "noisy")
    model.train(data, epochs=12, lr=0.02, batch=10, input_noise=0.3, out=out, seed=1)
    with open(os.path.join(out, "run.json")) as f:
        record = json.load(f)
    assert '"--input-noise": 0.3' in json.dumps(record), json.dumps(record)[:400]
    assert '"--select": "auto"' in json.dumps(record)
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    epochs = epochs_of(out)
    best = max(epochs, key=lambda e: (e["valid_metric"], -e["valid_loss"]))
    assert summary["best_epoch"] == best["epoch"], (summary["best_epoch"], best)
    print(f"input_noise 0.3: {len(epochs)} epochs, best {best['epoch']} "
          f"(valid accuracy {best['valid_metric']:.3f})")

    # The norm penalty (`--norm-penalty`) is a training option like the others.
    penalised = os.path.join(tmp, "penalised")
    model.train(data, epochs=1, batch=10, norm_penalty=0.03, out=penalised, seed=1)
    with open(os.path.join(penalised, "run.json")) as f:
        assert '"--norm-penalty": 0.03' in f.read()

    # The same early-stopping rule as the command line: 20 epochs without a
    # better value end the run (SGD at 1e-300 changes nothing after epoch 1).
    frozen = os.path.join(tmp, "frozen")
    model.train(data, epochs=30, optimizer="sgd", lr=1e-300, batch=10, out=frozen)
    assert len(epochs_of(frozen)) == 22, len(epochs_of(frozen))

    try:
        model.train(data, epochs=12, input_noise=0.1, out=out, resume=True)
    except plastic.Error as e:
        assert "exit code 2" in str(e), e  # refused as a usage error, as the CLI does
        print(f"changed input_noise on resume: {str(e)[:80]}")
    else:
        raise AssertionError("a resumed run took another input_noise")

    try:
        model.train(data, epochs=1, noise=0.1, out=os.path.join(tmp, "x"))
    except plastic.Error as e:
        assert "input_noise" in str(e), e
    else:
        raise AssertionError("an unknown option was taken")
print("ok")
