"""quiz calc's meta measurements without importing torch._dynamo (quizforge/accounting/dynamo_free.py).

Each test runs in a fresh interpreter: whether torch._dynamo was ever imported is a
property of the whole process.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

GPT2_FORWARD_1024 = 291_648_307_200  # hand-checked in test_accounting: matmuls of 124M GPT-2 at n = 1024


def run(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


MEASURE = """
    import json, sys
    {before}
    from quizforge.accounting import measure
    from quizforge.reference.presets import get_preset
    f = measure.measure_flops(get_preset("gpt2"), 1, 1024)
    kv = measure.measure_kv_cache_bytes(get_preset("llama2-70b"), 1, 4096, "fp16")
    loaded = "torch._dynamo" in sys.modules
    import torch._dynamo   # the real one, once the measurement is over
    print(json.dumps({{"forward": sum(f.forward.values()), "training": f.training, "kv": kv,
                      "loaded_while_measuring": loaded, "real": hasattr(torch._dynamo, "optimize")}}))
"""


def test_measuring_does_not_import_dynamo_and_gives_the_same_integers():
    fast = run(MEASURE.format(before=""))
    assert fast["loaded_while_measuring"] is False
    assert fast["real"] is True   # a later import of torch._dynamo is not left with the stand-in
    assert fast["forward"] == GPT2_FORWARD_1024 and fast["training"] == 3 * GPT2_FORWARD_1024
    assert fast["kv"] == 1_342_177_280   # 2·80 layers·8 KV heads·128·4096 tokens·2 bytes
    usual = run(MEASURE.format(before="import torch._dynamo"))   # dynamo already there: nothing is changed
    assert {k: usual[k] for k in ("forward", "training", "kv")} == {k: fast[k] for k in ("forward", "training", "kv")}


def test_asking_the_stand_in_for_more_than_disable_gives_the_real_module():
    got = run("""
        import json, sys
        from quizforge.accounting.dynamo_free import dynamo_free
        with dynamo_free():
            from torch._dynamo import optimize   # needs the real torch._dynamo
            real = type(sys.modules["torch._dynamo"]).__name__ == "module"
        import torch
        print(json.dumps({"real": real, "callable": callable(optimize), "attr": hasattr(torch._dynamo, "optimize")}))
    """)
    assert got == {"real": True, "callable": True, "attr": True}
