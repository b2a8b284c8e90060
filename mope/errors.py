"""The errors a user can cause, each with a message that names the problem and the way out.

The command line prints a :class:`UserError` as one line and exits non-zero; any other exception
is a bug in this package and keeps its traceback.

The package needs torch, numpy and tqdm alone (the drop-in modules, the GPT, the training loop); what
the evidence and the byte-pair tokenizer need comes with its optional extra (``pyproject.toml``:
``project.optional-dependencies``). Code that needs one imports it through :func:`optional_import`, so that
a missing extra says which to install. A message holds one line: a path or stored string in it is :func:`shown`
with its control characters escaped, an exception is :func:`one_line`, a long text is cut (:func:`shorten`).
"""

# The packages the code imports from an optional extra, each with its extra (tests/test_wheel.py checks them
# against pyproject.toml). jsonschema, also in "evidence", is not here: without it the store validates with
# its own reading of the same schema (mope.store.result_schema).
EXTRAS = {"scipy": "evidence", "tokenizers": "bpe"}


def listed_more_than_once(values) -> list[str]:
    """The values that ``values`` lists more than once, as text, sorted: one pass (50,000 names compared pair by
    pair took 82 s)."""
    from collections import Counter

    return sorted(str(value) for value, count in Counter(values).items() if count > 1)


class UserError(Exception):
    """Bad input or a bad environment: a wrong name, an unusable file or folder, a missing device."""


class ConfigError(UserError, ValueError):
    """A configuration, name or argument outside what the package supports."""


class MissingExtraError(UserError, ImportError):
    """A feature needs a package of one of mope's optional extras, and it is not installed."""


def install_command(extra: str) -> str:
    """How to add ``extra`` to an installed mope: from its repository (the address of the installed package's
    metadata, ``project.urls`` in pyproject.toml), or in a clone of it."""
    from importlib import metadata

    try:
        urls = metadata.metadata("mope").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:  # run from a folder on sys.path, not installed
        urls = []
    repository = next((url.partition(",")[2].strip() for url in urls if url.lower().startswith("repository,")), None)
    from_clone = f'pip install -e ".[{extra}]" in a clone'
    return f'pip install "mope[{extra}] @ git+{repository}" (or {from_clone})' if repository else from_clone


def optional_import(module: str, needed_for: str):
    """``module`` (a package of :data:`EXTRAS`, or one of its submodules), imported; where it is not installed, a
    :class:`MissingExtraError` that says what ``needed_for`` it and which extra installs it."""
    import importlib

    package = module.partition(".")[0]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name is None or error.name.partition(".")[0] != package:  # the package is there, but broken
            raise
        raise missing_extra_error(package, EXTRAS[package], needed_for) from None


def missing_extra_error(package: str, extra: str, needed_for: str) -> MissingExtraError:
    """The one-line error of an optional ``package`` that is not installed: what ``needed_for`` it, and how to install
    ``extra``, the extra that brings it."""
    return MissingExtraError(f"{needed_for} needs {package}, which mope's extra {extra!r} installs: "
                             f"{install_command(extra)}")


def shown(text) -> str:
    """``text`` (a path, a folder's name, a stored string) safe to print on one line: control characters
    (a newline in a folder's name could forge a line of its own) written as escapes."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(text))


def one_line(error: BaseException) -> str:
    """An exception as one short line, whatever it is (some carry no message at all)."""
    text = " ".join(str(error).split())
    return shorten(f"{type(error).__name__}: {text}" if text else type(error).__name__, 120)


def shorten(text: str, limit: int = 160) -> str:
    """``text`` on one line (runs of white space made one space), cut to ``limit`` characters with "..."."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."

