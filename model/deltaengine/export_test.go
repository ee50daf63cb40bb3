package deltaengine

// HostileLines gives the external tests hostileLines.
var HostileLines = hostileLines
