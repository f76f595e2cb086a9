"""`python -m graphmem.cli`: the same as the `graphmem` console command."""

import sys

from graphmem.cli.main import main

sys.exit(main())
