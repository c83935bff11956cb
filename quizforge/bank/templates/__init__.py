"""Template modules, one per topic. Importing a module registers its templates."""

MODULES = ("dims", "params", "models", "flops", "recurrence", "memory", "attention", "code_reading", "softmax",
           "positional", "encoding", "norms", "sampling", "concepts", "efficient", "roles", "shaped",
           "matrices")
