"""`python -m graphmem`: the same as the `graphmem` console command (`python -m graphmem.cli`
too), for environments where the script's folder is not on PATH."""

import sys

from graphmem.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
