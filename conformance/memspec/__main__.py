from memspec.cli.entry import main

raise SystemExit(main())
