import AuditCore

extension Slider {
    /// How `explore` drives a slider: drags to any value in hundredths, half the time at an end of
    /// its range or a hundredth either side (the drag's check refuses those outside), and now and
    /// then a reset. The ends are the drag's boundaries, which `minimize` shrinks a value toward.
    public static let generators = [
        drag.generator(boundaries: { _ in [0, 1] }) { _, random in
            (random.value(in: 0...1, orNear: [0, 1], step: 0.01) * 100).rounded() / 100
        },
        resetInput.generator(weight: 0.2) { _, _ in () },
    ]
}
