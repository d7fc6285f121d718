# Run inside GTKWave by sim-scripts/wave-shot.sh (gtkwave -S shot.tcl): sets
# the time window, writes a PNG of the window and quits. Parameters come from
# the environment:
#   WAVE_SHOT_OUT   PNG to write (required)
#   WAVE_SHOT_FROM  WAVE_SHOT_TO  time window in the dump's time units;
#                   unset: the whole dump (zoom to fit)

if {![info exists ::env(WAVE_SHOT_OUT)]} {
    puts stderr "shot.tcl: WAVE_SHOT_OUT is not set"
    gtkwave::/File/Quit
}
set out $::env(WAVE_SHOT_OUT)

puts "shot.tcl: [gtkwave::getVisibleNumTraces] traces, dump from [gtkwave::getMinTime] to [gtkwave::getMaxTime]"
if {[info exists ::env(WAVE_SHOT_FROM)] && [info exists ::env(WAVE_SHOT_TO)]} {
    gtkwave::setZoomRangeTimes $::env(WAVE_SHOT_FROM) $::env(WAVE_SHOT_TO)
} else {
    gtkwave::/Time/Zoom/Zoom_Best_Fit
}
puts "shot.tcl: window [gtkwave::getWindowStartTime] to [gtkwave::getWindowEndTime]"

if {[catch {gtkwave::/File/Grab_To_File $out} err]} {
    puts stderr "shot.tcl: Grab_To_File failed: $err"
}
gtkwave::/File/Quit
