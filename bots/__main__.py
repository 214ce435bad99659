from bots.bridge import main

raise SystemExit(main())
