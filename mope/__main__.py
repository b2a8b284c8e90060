"""``python -m mope``: the command line of :mod:`mope.cli`."""
from mope.cli import main

if __name__ == "__main__":
    main()
