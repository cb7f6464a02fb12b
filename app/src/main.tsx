import './styles.css'
import { render } from 'preact'
import { App } from './shell'

render(<App />, document.getElementById('root')!)
