"""The application: one mail in, its replies out.

The pipeline (screening, commands, one transaction per mail), the command
handlers by topic, views (data for templates), notices, reply composition
from the templates, help, and the clock work (the ticker).
"""
