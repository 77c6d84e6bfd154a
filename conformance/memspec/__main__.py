from memspec._cli import main

raise SystemExit(main())
