"""What learned players see and do, as numbers: stable action ids and the observation vector.

- :mod:`nomercy.encoding.actions`: an integer id for every action (``ACTION_SPACE_VERSION``,
  ``action_to_id``, ``id_to_action``, ``action_mask``);
- :mod:`nomercy.encoding.observations`: a seat's view (or ``Game.snapshot(seat)``) as a
  ``float32`` vector with named slices (``OBS_LAYOUT``, ``ObservationEncoder``).

One encoding serves the RL environments (:mod:`nomercy.rl`; these two modules are where a policy
imports the ids and observations from) and the ``neural`` bot
(:mod:`nomercy.bots.neural_bot`), so a policy trained in one plays in the other. It sits above
the core and below both, and needs numpy (the ``rl`` or ``neural`` extra). docs/rl.md
documents the layout.

:mod:`nomercy.encoding.fast` (the observation writer the environments use on every step) is
compiled with the core when the core is (``nomercy.core.COMPANION_FILES``): it then loads from
the core's build, and runs as Python with ``NOMERCY_PURE=1`` or a pure core.
"""

from __future__ import annotations

try:
    # numpy for the arrays; librt (mypyc's runtime library) and mypy_extensions for the
    # packed vectors the observation writer builds its vectors in (nomercy.encoding.fast).
    import librt.vecs as _vecs  # noqa: F401
    import mypy_extensions as _extensions  # noqa: F401
    import numpy as _numpy  # noqa: F401
except ImportError as _exc:  # pragma: no cover - depends on the install
    raise ImportError(
        f"nomercy.encoding needs numpy, librt and mypy_extensions ({_exc}): "
        "pip install 'uno-no-mercy[rl]' (or the neural extra)"
    ) from _exc

import os as _os
import sys as _sys

from nomercy import core as _core

#: Which build the observation writer (:mod:`nomercy.encoding.fast`) runs, and why.
WRITER_BUILD, WRITER_REASON = _core.BUILD, "with the core"
if _core.BUILD == "compiled":
    # The companions' extensions carry their modules' names; the rest of the package has
    # none there and loads from this directory as usual.
    _compiled = _os.path.join(_core.COMPILED_DIR, "encoding")
    __path__.insert(0, _compiled)
    try:
        # Loaded now, so a writer that cannot load is known at import: its extension refuses
        # a librt with another ABI version, or an older API version, than it was compiled
        # for (any librt >= 0.11 with the same ABI does; core/build.py records the versions).
        from nomercy.encoding import fast as _fast  # noqa: F401
    except Exception as _exc:  # any failure to load means: the Python writer
        __path__.remove(_compiled)
        _sys.modules.pop("nomercy.encoding.fast", None)
        WRITER_BUILD = "pure"
        WRITER_REASON = f"the compiled writer cannot load: {type(_exc).__name__}: {_exc}"
        _core.warn_lost_speed("the observation writer (nomercy.encoding.fast)", WRITER_REASON)
