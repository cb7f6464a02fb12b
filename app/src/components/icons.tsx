/** Line icons drawn inline (no icon font, no emoji that a system may lack). */
const Line = ({
  paths,
  size,
  style,
}: {
  readonly paths: readonly string[]
  readonly size: number
  readonly style?: Record<string, string>
}) => (
  <svg
    aria-hidden="true"
    width={size}
    height={size}
    viewBox="0 0 24 24"
    fill="none"
    stroke="currentColor"
    stroke-width="2"
    style={style}
  >
    {paths.map((d) => (
      <path key={d} d={d} />
    ))}
  </svg>
)

export const Paperclip = () => (
  <Line
    size={16}
    style={{ verticalAlign: '-3px' }}
    paths={[
      'm21.4 11.1-9.2 9.2a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5',
    ]}
  />
)

export const BackArrow = () => <Line size={20} paths={['M15 18l-6-6 6-6']} />

export const MenuLines = () => <Line size={20} paths={['M4 6h16M4 12h16M4 18h16']} />

export const BellOutline = () => (
  <Line size={18} paths={['M6 8a6 6 0 1 1 12 0c0 7 3 9 3 9H3s3-2 3-9', 'M10.3 21a1.94 1.94 0 0 0 3.4 0']} />
)
