"""A model error raises plastic.Error carrying the located diagnostic of
`plastic check`: file:line:col, the source line and a caret."""
import os
import re

import plastic

SRC = os.environ["PLASTIC_SOURCE_DIR"]
source = open(os.path.join(SRC, "examples", "gnode_flipflop.ode")).read()
broken = source.replace("sigmoid(Wz @ hx + bz)", "sigmoid(Wz @ h + bz)")
assert broken != source
try:
    plastic.compile(broken, set={"N": 8, "H": 16})
except plastic.Error as e:
    text = str(e)
    print(text)
    assert re.search(r"<source>:\d+:\d+: error:", text), text
    assert "^" in text, text
else:
    raise AssertionError("a model that does not check compiled")

try:
    plastic.compile(os.path.join(SRC, "examples", "no_such_model.ode"))
except plastic.Error as e:
    assert "no such model file" in str(e), str(e)
else:
    raise AssertionError("a missing file compiled")

# An unknown --set name is a usage error, also raised as plastic.Error.
try:
    plastic.compile(os.path.join(SRC, "examples", "gnode_flipflop.ode"), set={"no_such_dim": 3})
except plastic.Error as e:
    assert "no_such_dim" in str(e), str(e)
else:
    raise AssertionError("an unknown dim was accepted")
# A path to a device or a folder is a path, refused with the reader's reason
# (it was parsed as a one-line model).
for special in ("/dev/zero", SRC):
    try:
        plastic.compile(special)
    except plastic.Error as e:
        assert "not a regular file" in str(e) or "is a directory" in str(e) or "cannot read" in str(e), str(e)
        print(f"{special}: {str(e).strip()[:100]}")
    else:
        raise AssertionError(f"{special} compiled")
print("ok")
