"""Model.predict(series_alone=True): each series is solved in a tile of its
own, so under an adaptive solver (the NCDE's dopri5, examples/ncde_character.ode)
a series gets the same outputs, bit for bit, whether it is predicted inside
a batch or alone; without it, one step size per tile makes them differ
within the solver's tolerance (printed, not asserted: the gap is the
solver's to choose)."""
import math
import os

import numpy as np

import plastic

CH, SAMPLES, LENGTH = 3, 10, 30
rng = np.random.default_rng(11)
# Series of unequal roughness, so the tile's hardest series sets its steps.
series = np.array([[[math.sin((0.2 + 0.3 * i) * t + c) + 0.05 * i * rng.standard_normal()
                     for c in range(CH)] for t in range(LENGTH)] for i in range(SAMPLES)])

SRC = os.environ["PLASTIC_SOURCE_DIR"]
model = plastic.compile(os.path.join(SRC, "examples", "ncde_character.ode"),
                        set=dict(d_data=CH, classes=4, hidden=8, d_f=16), dtype="float64")
model.initialise(seed=3)
whole = model.predict(series, series_alone=True)
shared = model.predict(series)
for i in range(SAMPLES):
    alone = model.predict(series[i:i + 1], series_alone=True)
    assert np.array_equal(alone[0], whole[i]), (i, alone[0], whole[i])
print(f"series alone == inside the batch for all {SAMPLES}; shared tiles differ by up to "
      f"{np.max(np.abs(shared - whole)):.2e}")
print("ok")
