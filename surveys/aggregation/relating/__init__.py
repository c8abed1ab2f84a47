"""Relating answers: cross-tabs, break-downs and the pair counts behind them."""
