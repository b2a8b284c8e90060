"""The errors a user can cause, each with a message that names the problem and the way out.

The command line prints a :class:`UserError` as one line and exits non-zero; any other exception
is a bug in this package and keeps its traceback.
"""


class UserError(Exception):
    """Bad input or a bad environment: a wrong name, an unusable file or folder, a missing device."""


class ConfigError(UserError, ValueError):
    """A configuration, name or argument outside what the package supports."""
