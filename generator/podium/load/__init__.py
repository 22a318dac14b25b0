"""Reading inputs: the XORCISE export (``export``) and, for the site, content pages."""
