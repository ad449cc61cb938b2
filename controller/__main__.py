"""Allow ``python -m controller`` as ``livetable``."""

import sys

from controller.cli import main

sys.exit(main())
