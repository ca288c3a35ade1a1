/** The product's mark: a house with a leaf, drawn inline (no extra request). */
export function Logo({ size = 36 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 48 48" aria-hidden="true" focusable="false">
      <rect width="48" height="48" rx="10" fill="#1864ab" />
      <path d="M10 24 24 12l14 12v13a1 1 0 0 1-1 1H11a1 1 0 0 1-1-1z" fill="#fff" />
      <rect x="20" y="28" width="8" height="10" rx="1" fill="#1864ab" />
      <path d="M31 15c5-1 8 1 8 1s-1 5-6 6c-2 .4-3-.5-3-.5s-.5-5.5 1-6.5z" fill="#74C365" />
    </svg>
  );
}
