"""What runs inside the sandbox: the worker, the wire protocol and the forbidden-API guards.

These modules import only the standard library and torch, never the rest of quizforge,
and use relative imports alone. The sandbox copies this folder, and nothing else of the
package, into the worker's file system, so the reference model and the hidden suites
are not there to be imported, read or exec'd, whatever the spelling. The judge imports
`protocol` from here too, so both sides speak the same format by construction.
"""
