"""The overhead dealer display (issue 8): a pygame program fed by the retained public state.

``livetable display`` (:mod:`display.app`) runs it; :func:`display.layout.layout` places
everything as a pure function of the state and the screen size; :mod:`display.render` draws
it; :mod:`display.feed` follows the table over MQTT. See ``docs/display.md``.
"""
