"""bad_input.py: how an analysis script that a user runs on files says it cannot use one: one
line on stderr naming the script and the file, exit 66 where a file cannot be read and 65 where
it is not the script's input (the project's rule for bad input), never a Python traceback.

    sys.exit(bad_input.run("issue_bytes", main, sys.argv[1:]))
"""
import json
import sys

NOINPUT = 66   # sysexits EX_NOINPUT: a file missing or unreadable
DATAERR = 65   # sysexits EX_DATAERR: a file that is not the script's input


def fail(prog, path, why, code):
    """One line "PROG: PATH: WHY" on stderr; returns code, for sys.exit."""
    print("%s: %s: %s" % (prog, path, " ".join(str(why).split())), file=sys.stderr)
    return code


def load_json(path):
    """The JSON in path; a file that is not JSON raises ValueError naming it (json's own message
    names only the line and column)."""
    with open(path) as f:
        try:
            return json.load(f)
        except ValueError as e:
            raise ValueError("%s: not JSON (%s)" % (path, e)) from None


def run(prog, main, *args):
    """main(*args)'s exit status (None: 0). A file main cannot open ends in one line and 66; input
    main cannot read (not JSON, not text, a key or field it lacks) in one line naming the script's
    file arguments and the exception, and 65."""
    try:
        return main(*args) or 0
    except OSError as e:
        return fail(prog, e.filename if e.filename is not None else "?", e.strerror or e, NOINPUT)
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as e:
        # the file arguments: main's, else the command line's (argparse mains take none); option
        # names are not files
        files = [a for x in (args or (sys.argv[1:],)) for a in (x if isinstance(x, (list, tuple)) else [x])
                 if isinstance(a, str) and a and not a.startswith("-")]
        return fail(prog, ", ".join(files) or "input", "not its input (%s: %.80s)" % (type(e).__name__, e),
                    DATAERR)
