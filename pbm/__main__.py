import sys

from pbm.server.cli import main

sys.exit(main())
