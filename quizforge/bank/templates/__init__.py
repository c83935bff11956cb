"""Template modules, one per topic. Importing a module registers its templates."""

MODULES = ("dims", "params", "flops", "memory", "attention", "softmax", "positional", "concepts")
