from lambdarag.cli import main; raise SystemExit(main())
