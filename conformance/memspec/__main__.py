from memspec._entry import main

raise SystemExit(main())
