# Attack (issue #20, items 3 and 5): torch._refs.softmax through a name the static check cannot resolve.
import pkgutil


def softmax(x, dim=-1):
    return pkgutil.resolve_name("torch._refs.softmax")(x, dim)
