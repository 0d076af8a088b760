"""``python -m tocsearch`` runs the command line."""

import sys

from tocsearch.cli import main

sys.exit(main())
