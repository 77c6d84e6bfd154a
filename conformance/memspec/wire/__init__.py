"""The wire: talking to an implementation. The protocol, the three kinds of adapter, the
reference behind them, and the text and instant forms values take on the wire.

May import ``corpus``.
"""
