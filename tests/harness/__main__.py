# SPDX-License-Identifier: GPL-2.0
"""`python3 -m harness COMMAND`: see commands.py."""

import sys

from .commands import main

sys.exit(main())
