"""Seat tablets over MQTT (issue 7): topic tree, payload codec, the controller's paho link,
a tablet simulator and broker provisioning. See docs/mqtt.md."""
