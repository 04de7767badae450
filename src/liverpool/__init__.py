"""Liverpool Rummy (Contract Rummy, "May I?"): rules engine, bots, terminal and browser play.

Importing the package first decides which core runs (``liverpool.compiled``): the rules core
compiled at install where a C compiler was present, else the same modules in pure Python.
"""

from . import compiled as _compiled

_compiled.select()
