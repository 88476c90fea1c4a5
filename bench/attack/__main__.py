import sys

from bench.attack.run import main

sys.exit(main())
