import AuditCLI

AuditCommandLine().main()
