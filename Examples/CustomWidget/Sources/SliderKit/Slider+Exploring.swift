import AuditCore

extension Slider {
    /// How `explore` drives a slider: drags to any value in hundredths, and now and then a reset.
    public static let generators = [
        drag.generator { _, random in (Double.random(in: 0...1, using: &random) * 100).rounded() / 100 },
        resetInput.generator(weight: 0.2) { _, _ in () },
    ]
}
